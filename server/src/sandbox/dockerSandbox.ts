/**
 * The Docker backend: one container per sandbox, created from the task's image with our labels,
 * no network unless the task asks, and the configured memory, CPU and process limits. The container
 * ends and is removed when the process that opened it dies (`lifeline.ts`). Commands run through a
 * persistent shell session (`shellSession.ts`); files move as tar archives.
 */
import { posix } from 'node:path';
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import type { ExecResult, SandboxSpec } from '../protocol/sandbox.js';
import { withDeadline } from '../util/deadline.js';
import { commandScript, describeCommand, shellQuote } from './commandScript.js';
import { ownerLabels } from './containers.js';
import { connectDocker } from './dockerClient.js';
import { GitSandbox } from './gitSandbox.js';
import { Lifeline, lifelineCommand, lifelineCreateOptions, lifelineHostConfig } from './lifeline.js';
import { checkOutBase, gradingBase } from './repoOps.js';
import { assertMountsAllowed } from './mountPolicy.js';
import { SandboxError, type Command, type ExecOptions, type ReadTreeOptions, type Sandbox, type TreeFile } from './sandbox.js';
import { SessionEnded, ShellSession } from './shellSession.js';
import { execResultOf } from './scriptSession.js';
import { extractFiles, packFiles } from './tarFiles.js';

function statusCode(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Force-removes a container with its anonymous volumes and returns once it is gone. A container
 * already gone (404) is fine; one already being removed (409), by the engine after its first
 * process exited or by a reaper, is waited for, so that the caller can count on it being gone.
 */
async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
    return;
  } catch (error) {
    if (statusCode(error) === 404) return;
    if (statusCode(error) !== 409) throw error;
  }
  try {
    await withDeadline(container.wait({ condition: 'removed' }), 30_000, `container ${container.id} was not removed`);
  } catch (error) {
    if (statusCode(error) !== 404) throw error;
  }
}

function slug(text: string): string {
  return (
    text
      .replace(/[^a-zA-Z0-9_.-]+/g, '-')
      .replace(/^[-.]+/, '')
      .slice(0, 40) || 'task'
  );
}

/** A task without an image cannot run on this backend; the launch preflight says the same (taskReadiness.ts). */
export function noImageError(task: string): SandboxError {
  return new SandboxError(
    `Task ${task} has no docker_image, so the docker backend cannot run it. Give it an image, or a local_repo and --backend local.`,
    'no-source',
  );
}

/** An image the engine does not hold, and how to get it; the launch preflight says the same (taskReadiness.ts). */
export function imageMissingError(image: string): SandboxError {
  return new SandboxError(
    `Image ${image} is not on this Docker engine. Build it with \`gp images build\` (the sample images) or pull it with \`gp images prepull --manifest FILE\` (or \`gp images prepull ${image}\`).`,
    'image-missing',
  );
}

export function containerConfig(spec: SandboxSpec, image: string): Docker.ContainerCreateOptions {
  const limits = spec.limits;
  return {
    name: `gp-${slug(spec.task)}-${Math.random().toString(36).slice(2, 8)}`,
    Image: image,
    Entrypoint: ['bash', '-c'],
    Cmd: [lifelineCommand],
    ...lifelineCreateOptions,
    WorkingDir: spec.workdir,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    Labels: ownerLabels(spec.run, spec.task, new Date(), spec.node, spec.episode, spec.runDir),
    HostConfig: {
      ...lifelineHostConfig,
      NetworkMode: spec.network ? 'bridge' : 'none',
      // No process in the container can gain privileges (setuid binaries, file capabilities), and it
      // holds only the capabilities the user gave back (`sandbox.capabilities`, none by default):
      // test runs, patches and git need none, because root owns the work tree and runs the commands.
      SecurityOpt: ['no-new-privileges'],
      CapDrop: ['ALL'],
      ...(spec.capabilities.length === 0 ? {} : { CapAdd: [...spec.capabilities] }),
      Binds: spec.mounts.map((m) => `${m.host}:${m.container}:${m.mode}`),
      ...(limits.memoryBytes !== null ? { Memory: limits.memoryBytes, MemorySwap: limits.memoryBytes } : {}),
      ...(limits.cpus !== null ? { NanoCpus: Math.round(limits.cpus * 1e9) } : {}),
      ...(limits.pids !== null ? { PidsLimit: limits.pids } : {}),
    },
  };
}

/** The largest file read through the command session (as base64, a third larger); larger ones use the archive endpoint. */
const sessionReadLimitBytes = 16 * 1024 * 1024;
/** The largest file written through the command session: bash reads the script byte by byte. */
const sessionWriteLimitBytes = 256 * 1024;

export class DockerSandbox extends GitSandbox implements Sandbox {
  readonly backend = 'docker' as const;
  /** Every command goes through the container's shell session (shellSession.ts), written to its stdin. */
  readonly privateScripts = true;
  private session: ShellSession | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly docker: Docker,
    private readonly container: Docker.Container,
    private readonly lifeline: Lifeline,
    readonly spec: SandboxSpec,
    readonly name: string,
  ) {
    super();
  }

  /** The image the task's commands run in. */
  get environment(): string {
    return `image ${this.spec.image ?? 'unknown'}`;
  }

  /** Creates, starts and checks a container; on any failure nothing is left behind. */
  static async open(spec: SandboxSpec): Promise<DockerSandbox> {
    if (!spec.image) throw noImageError(spec.task);
    // Checked again here, the one place a container is made, whoever built the spec.
    assertMountsAllowed(spec);
    const { docker } = await connectDocker();
    const config = containerConfig(spec, spec.image);
    let container: Docker.Container;
    try {
      container = await docker.createContainer(config);
    } catch (error) {
      if (statusCode(error) === 404) {
        throw imageMissingError(spec.image);
      }
      throw new SandboxError(`Could not create a container from ${spec.image}: ${(error as Error).message}`, 'io');
    }
    const name = config.name ?? container.id;
    // Attached before the start, so there is no moment when the container runs without its owner's hold.
    let lifeline: Lifeline;
    try {
      lifeline = await Lifeline.attach(container);
    } catch (error) {
      await removeContainer(container).catch(() => undefined);
      throw new SandboxError(`Could not attach to container ${name} from ${spec.image}: ${(error as Error).message}`, 'io');
    }
    const sandbox = new DockerSandbox(docker, container, lifeline, spec, name);
    try {
      await container.start();
      if (spec.baseCommit !== undefined)
        await checkOutBase(sandbox, spec.baseCommit, { task: spec.task, repo: `${spec.image ?? 'the image'}:${spec.workdir}`, backend: 'docker' });
      sandbox.base = await gradingBase(sandbox, spec, spec.workdir, `${spec.image ?? 'the image'}:${spec.workdir}`);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  get id(): string {
    return this.container.id;
  }

  protected get displayName(): string {
    return this.name;
  }

  get workdir(): string {
    return this.spec.workdir;
  }

  scratchPath(name: string): string {
    return `/tmp/.gp-${name}`;
  }

  private resolve(path: string): string {
    return posix.isAbsolute(path) ? posix.normalize(path) : posix.join(this.spec.workdir, path);
  }

  exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    // One command at a time per session; file transfers do not wait behind commands.
    const run = this.queue.then(() => this.execNow(command, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async execNow(command: Command, options: ExecOptions): Promise<ExecResult> {
    if (this.closed) throw new SandboxError(`Sandbox ${this.name} is closed.`, 'closed');
    const script = commandScript({ command, cwd: this.resolve(options.cwd ?? '.'), env: options.env });
    const started = performance.now();
    if (!this.session?.alive) this.session = await this.startSession(command);
    try {
      const r = await this.session.run(script, {
        timeoutMs: options.timeoutMs ?? this.spec.commandTimeoutMs,
        maxOutputBytes: options.maxOutputBytes ?? this.spec.outputLimitBytes,
        onOutput: options.onOutput,
      });
      return execResultOf(r, started);
    } catch (error) {
      if (error instanceof SessionEnded) throw await this.explainLostSession(command, error);
      throw error;
    }
  }

  private async startSession(command: Command): Promise<ShellSession> {
    try {
      return await ShellSession.start(this.container);
    } catch (error) {
      throw await this.explainLostSession(command, error as Error);
    }
  }

  /** Tells a stopped container (killed, out of memory) from a session that merely ended. */
  private async explainLostSession(command: Command, error: Error): Promise<SandboxError> {
    this.session = undefined;
    const what = `\`${describeCommand(command)}\``;
    try {
      // The exec stream can end a moment before the engine marks a killed container as stopped.
      let info = await this.container.inspect();
      for (let i = 0; i < 10 && info.State.Running; i++) {
        await new Promise((done) => setTimeout(done, 100));
        info = await this.container.inspect();
      }
      if (!info.State.Running) {
        const oom = info.State.OOMKilled ? ', killed for going over its memory limit' : '';
        return new SandboxError(
          `Container ${this.name} stopped while running ${what} (state ${info.State.Status}, exit code ${info.State.ExitCode}${oom}). Its work is lost; open a new sandbox.`,
          'container-gone',
        );
      }
    } catch (inspectError) {
      if (statusCode(inspectError) === 404) {
        // The engine removes a container as soon as it stops (lifeline.ts), so this is the usual case.
        return new SandboxError(
          `Container ${this.name} stopped while running ${what} and was removed. Its work is lost; open a new sandbox.`,
          'container-gone',
        );
      }
    }
    return new SandboxError(`The command session of ${this.name} ended while running ${what} (${error.message}); the next command opens a new one.`, 'io');
  }

  /**
   * A regular file is read through the command session as base64 (one round trip, a few ms),
   * since Docker's archive endpoint costs about 45 ms a call and a repair step reads every file a
   * candidate changes. Anything else (a missing file, a directory, a link, a file too large for
   * one command's output, an image without base64) goes through the archive endpoint, which says
   * precisely what is there.
   */
  async readFile(path: string): Promise<Buffer> {
    const full = this.resolve(path);
    const read = await this.exec(['sh', '-c', 'test -f "$1" && test ! -L "$1" || exit 3; exec base64 -w 0 -- "$1"', 'sh', full], {
      maxOutputBytes: sessionReadLimitBytes,
      timeoutMs: 60_000,
    });
    if (read.exitCode === 0 && !read.truncated) return Buffer.from(read.stdout, 'base64');
    if (read.exitCode === 3 && (await this.exec(['test', '-e', full])).exitCode !== 0)
      throw new SandboxError(`No such file or directory in sandbox ${this.name}: ${full}`, 'io');
    return this.readFileArchive(full);
  }

  private async readFileArchive(full: string): Promise<Buffer> {
    const stream = await this.archive(full);
    const files = await extractFiles(stream, { maxFileBytes: Number.POSITIVE_INFINITY, include: () => true, stripFirst: false });
    const file = files[0];
    if (!file) throw new SandboxError(`${full} in sandbox ${this.name} is not a regular file.`, 'io');
    return file.content;
  }

  /**
   * A small file (a patch, a preimage) is written through the command session as base64 decoded
   * in place, for the same reason reads are; the text goes to bash's `read`, never to a program's
   * arguments, so no argument limit applies. Larger files go through the archive endpoint.
   */
  async writeFile(path: string, content: Buffer | string, mode = 0o644): Promise<void> {
    const bytes = Buffer.from(content);
    const full = this.resolve(path);
    if (bytes.length <= sessionWriteLimitBytes) {
      const dir = shellQuote(posix.dirname(full));
      const file = shellQuote(full);
      // A link or file already there is replaced, not written through, as the archive endpoint
      // replaces it. The tests are bash builtins, so the usual case starts one program, base64.
      // A file made by a redirection never gets execute or special bits; those need chmod.
      const steps = [
        `{ [ -d ${dir} ] || mkdir -p -- ${dir}; }`,
        `{ { [ ! -e ${file} ] && [ ! -L ${file} ]; } || rm -f -- ${file}; }`,
        `{ umask ${(0o777 & ~mode).toString(8)}; printf '%s' ${shellQuote(bytes.toString('base64'))} | base64 -d > ${file}; }`,
        ...((mode & 0o7111) === 0 ? [] : [`chmod ${(mode & 0o7777).toString(8)} -- ${file}`]),
      ];
      const script = steps.join(' && ');
      const written = await this.exec(script, { timeoutMs: 60_000 });
      if (written.exitCode === 0) return;
    }
    await this.writeFileArchive(full, bytes, mode);
  }

  private async writeFileArchive(full: string, content: Buffer, mode: number): Promise<void> {
    const tar = await packFiles([{ name: posix.basename(full), content: Buffer.from(content), mode }]);
    try {
      await this.container.putArchive(tar, { path: posix.dirname(full) });
    } catch (error) {
      if (statusCode(error) !== 404) throw this.ioError('write', full, error);
      const mk = await this.exec(['mkdir', '-p', posix.dirname(full)]);
      if (mk.exitCode !== 0) throw new SandboxError(`Cannot create ${posix.dirname(full)} in sandbox ${this.name}: ${mk.stderr.trim()}`, 'io');
      await this.container.putArchive(tar, { path: posix.dirname(full) }).catch((e: unknown) => {
        throw this.ioError('write', full, e);
      });
    }
  }

  async listFiles(dir = '.'): Promise<string[]> {
    const r = await this.exec(['find', '.', '-path', './.git', '-prune', '-o', '-type', 'f', '-print0'], { cwd: dir, maxOutputBytes: 64 * 1024 * 1024 });
    if (r.exitCode !== 0) throw new SandboxError(`Cannot list ${this.resolve(dir)} in sandbox ${this.name}: ${r.stderr.trim()}`, 'io');
    return r.stdout
      .split('\0')
      .filter((p) => p.length > 0)
      .map((p) => p.replace(/^\.\//, ''))
      .sort();
  }

  async readTree(dir = '.', options: ReadTreeOptions = {}): Promise<TreeFile[]> {
    const stream = await this.archive(this.resolve(dir));
    return extractFiles(stream, { maxFileBytes: options.maxFileBytes ?? 1024 * 1024, include: options.include ?? (() => true), stripFirst: true });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session?.close();
    this.session = undefined;
    try {
      await removeContainer(this.container);
    } catch (error) {
      throw this.ioError('remove', this.name, error);
    } finally {
      // Released after the removal was asked for, so the engine's own removal on exit does not
      // race ours; if the removal failed, letting go still ends the container.
      this.lifeline.release();
    }
  }

  private async archive(path: string): Promise<Readable> {
    this.assertOpen();
    try {
      return (await this.container.getArchive({ path })) as Readable;
    } catch (error) {
      if (statusCode(error) === 404) throw new SandboxError(`No such file or directory in sandbox ${this.name}: ${path}`, 'io');
      throw this.ioError('read', path, error);
    }
  }

  private ioError(what: string, path: string, error: unknown): SandboxError {
    return new SandboxError(`Cannot ${what} ${path} in sandbox ${this.name}: ${(error as Error).message}`, 'io');
  }

  /** For tests and the Containers view: the dockerode handle. */
  get client(): Docker {
    return this.docker;
  }
}
