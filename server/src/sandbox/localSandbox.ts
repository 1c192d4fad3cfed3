/**
 * The local backend: a private working copy of a repository on this machine, for machines
 * without Docker (the embedded default there). Commands run with `child_process` in their own
 * process group, so a timeout kills the whole tree; memory is limited with `ulimit -v`. Where
 * bubblewrap runs (bubblewrap.ts), commands run in a bash session inside one bwrap per sandbox
 * (holderShell.ts): namespaces of their own, the working copy, scratch, HOME and /tmp of the
 * sandbox writable and the rest read-only or hidden; where it does
 * not, there is no isolation from the host beyond what follows, and a warning says so once. Either
 * way commands get an allow-listed environment (localEnvironment.ts: no tokens or keys, a home of
 * their own), and the engine's own reads and writes stay inside the working copy and its scratch
 * folder, through no `..` and no symbolic link that leads out (a kept patch can create such a link).
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ExecResult, PythonEnvRecord, PythonEnvRequest, SandboxSpec } from '../protocol/sandbox.js';
import { localBackendWarning } from '../protocol/backendChoice.js';
import { bubblewrapArgs, foldersToShow, localIsolation, venvBasePrefix, type BubblewrapLayout, type LocalIsolation } from './bubblewrap.js';
import { HolderShell } from './holderShell.js';
import { execResultOf } from './scriptSession.js';
import { commandScript, describeCommand } from './commandScript.js';
import { localCommandEnvironment } from './localEnvironment.js';
import { isWithin } from '../util/pathWithin.js';
import { OutputCapture } from './outputCapture.js';
import { builtEnvRecord, envPaths, pythonEnvsRoot, pythonEnvVariables, pythonPathFolders, resolvePythonEnv } from './pythonEnv.js';
import { GitSandbox } from './gitSandbox.js';
import { forgetOrigin, historyUpTo } from './history.js';
import { asOfIndex } from './asOfIndex.js';
import { makeOverlayVenv } from './pythonEnvOverlay.js';
import { uvVersion } from './uvTool.js';
import { checkOutBase, gradingBase } from './repoOps.js';
import { SandboxError, type Command, type ExecOptions, type ReadTreeOptions, type Sandbox, type TreeFile } from './sandbox.js';

/** Runs `git` on the host, for making the working copy. */
async function hostGit(args: readonly string[], cwd: string): Promise<void> {
  await new Promise<void>((done, fail) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done() : fail(new Error(`git ${args.join(' ')} failed: ${err.trim()}`))));
  });
}

/**
 * A working copy of `source` in `target`: for a repository, a clone of its history up to the
 * task's commits (`history.ts`: the base commit and the commits its test command names, with
 * their ancestors and tags, and nothing later, so the sandbox holds no future), with no remote and
 * no reflog; for a plain folder (empty or not), a copy committed once so it has a base. The source
 * is never changed.
 *
 * A shallow source (`git clone --depth 1`, then `git fetch --depth 1 origin <sha>` for each commit
 * a dataset names) is fine: the history copy fetches the commits by id, their missing parents
 * recorded as a shallow boundary.
 */
async function makeWorkingCopy(source: string, target: string, base: string | undefined, named: readonly string[]): Promise<void> {
  if (existsSync(join(source, '.git'))) {
    // A task that names no base starts from the source's HEAD, which gradingBase then checks
    // against the commits its test command names.
    const history = await historyUpTo(source, [base ?? 'HEAD', ...named]);
    await hostGit(['clone', '--quiet', history, target], dirname(target));
    await forgetOrigin(target);
    return;
  }
  await cp(source, target, { recursive: true });
  await hostGit(['init', '--quiet'], target);
  await hostGit(['add', '-A'], target);
  // An empty folder is a valid start (a Harbor task whose agent writes every file), so the base may be an empty commit.
  await hostGit(
    ['-c', 'user.name=graph-planner', '-c', 'user.email=graph-planner@localhost', 'commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'base'],
    target,
  );
}

/**
 * The variables of a task's built environment. One that was asked for and is not built stops the
 * sandbox from opening: running the tests with the host's Python instead would grade them with
 * other tools, without a word.
 */
/**
 * Why the local backend cannot run a task from its repository: it names none, or the folder is not
 * on this machine. Opening a local sandbox and the launch preflight (taskReadiness.ts) both ask it.
 */
export function localRepoProblem(
  spec: Pick<SandboxSpec, 'task' | 'localRepo'>,
): { readonly code: 'no-local-repo' | 'local-repo-missing'; readonly error: SandboxError } | undefined {
  const source = spec.localRepo;
  if (!source)
    return {
      code: 'no-local-repo',
      error: new SandboxError(
        `Task ${spec.task} has no local_repo, so the local backend cannot run it. Give it a local_repo, or run it with --backend docker.`,
        'no-source',
      ),
    };
  if (!existsSync(source) || !statSync(source).isDirectory()) {
    return { code: 'local-repo-missing', error: new SandboxError(`local_repo ${source} of task ${spec.task} is not a folder on this machine.`, 'no-source') };
  }
  return undefined;
}

/**
 * The built Python environment a task's request names, or the error that says it is not built (or
 * its interpreter or requirements are missing). Opening a local sandbox and the launch preflight
 * (taskReadiness.ts) both ask it, so they agree on what "built" means.
 */
export async function builtPythonEnv(
  request: PythonEnvRequest,
  task: string,
): Promise<
  { readonly ok: true; readonly key: string; readonly root: string; readonly record: PythonEnvRecord } | { readonly ok: false; readonly error: SandboxError }
> {
  let env;
  try {
    env = await resolvePythonEnv(request);
  } catch (error) {
    if (error instanceof SandboxError) return { ok: false, error };
    throw error;
  }
  const envRoot = pythonEnvsRoot();
  const record = await builtEnvRecord(envRoot, env.key);
  if (record === undefined) {
    return {
      ok: false,
      error: new SandboxError(
        `The Python environment of task ${task} (${env.key}: Python ${env.interpreter.version}, ${env.packages.length} package(s)) is not built in ${envRoot}. Build it with \`gp env build TASKS.jsonl\` (the task's file) and run this again.`,
        'env-missing',
      ),
    };
  }
  return { ok: true, key: env.key, root: envRoot, record };
}

/** A built environment in words: `py39-… (Python 3.9.18, as of 2023-09-06, uv 0.13.9)`. */
export function environmentWords(key: string, record: Pick<PythonEnvRecord, 'pythonVersion' | 'asOf' | 'resolver'>): string {
  return `${key} (Python ${record.pythonVersion}, as of ${record.asOf}, ${record.resolver})`;
}

/** What a sandbox's commands see of a built environment: its variables, and the folders under a hidden home they need. */
interface BuiltEnvView {
  variables: Record<string, string>;
  asOf: string;
  words: string;
  folders: (string | undefined)[];
}

async function builtEnvVariables(request: PythonEnvRequest, task: string, root: string, home: string): Promise<BuiltEnvView> {
  const built = await builtPythonEnv(request, task);
  if (!built.ok) throw built.error;
  const paths = envPaths(built.root, built.key);
  const { record } = built;
  const asOf = record.asOf;
  const words = environmentWords(built.key, record);
  const pythonPath = pythonPathFolders(request, root).map((folder) => resolve(root, folder));
  // The environments' site-packages go on PYTHONPATH too (after the repository's folders), so a
  // Python started by another path still sees the packages: tox-current-env runs the tests with a
  // link to the venv's interpreter from `.tox/<env>/bin`, and Python, finding no pyvenv.cfg there,
  // starts as the bare base interpreter (in the harness's conda environment it finds its own).
  const minor = record.pythonVersion.split('.').slice(0, 2).join('.');
  const site = (venv: string) => join(venv, 'lib', `python${minor}`, 'site-packages');
  const shared = [site(paths.venv)];
  const folders = [built.root, venvBasePrefix(paths.venv), process.env['GP_UV_DIR'] ?? join(homedir(), '.cache', 'graph-planner', `uv-${uvVersion}`)];
  if (request.setup === undefined || request.setup.length === 0)
    return { variables: pythonEnvVariables(paths.bin, paths.venv, [...pythonPath, ...shared], process.env), asOf, words, folders };
  // The repository's own install goes into a venv of this working copy's (pythonEnvOverlay.ts),
  // with the shared environment's bin after the overlay's on PATH.
  const overlay = await makeOverlayVenv(paths, join(home, 'venv'));
  const path = process.env['PATH'];
  const sites = [site(overlay.venv), ...shared];
  return {
    variables: pythonEnvVariables(overlay.bin, overlay.venv, [...pythonPath, ...sites], {
      ...process.env,
      PATH: path === undefined || path === '' ? paths.bin : `${paths.bin}${delimiter}${path}`,
    }),
    asOf,
    words,
    folders,
  };
}

/** The repository setup's pip cache: the user's, so the second working copy of a repository installs from it. */
function pipCacheDir(): string {
  return join(homedir(), '.cache', 'graph-planner', 'pip');
}

/** How long one setup command may take: a compiled repository (scikit-learn) builds for minutes. */
const setupTimeoutMs = 60 * 60_000;

/**
 * Runs the task's setup commands (`python_env.setup`) in the working copy, then commits what they
 * changed, as the harness does after its install (`git commit -am`), so a patch is diffed after
 * them. New files that git does not ignore are committed too: a build product left untracked would
 * otherwise enter every patch. Returns the commit patches are diffed against, or undefined when the
 * commands changed nothing.
 */
async function runSetup(sandbox: LocalSandbox, commands: readonly string[], task: string, asOf: string): Promise<string | undefined> {
  if (commands.length === 0) return undefined;
  // pip's cache is the user's, not the sandbox's fresh HOME, so the second working copy of a
  // repository installs from the cache.
  const env: Record<string, string> = { PIP_CACHE_DIR: pipCacheDir(), PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_CONFIG_FILE: '/dev/null' };
  // The environment's pip of that day resolves the install's requirements and, under build
  // isolation, its build backend from the index as it was on the day the environment resolved as of
  // (asOfIndex.ts, whose upstream is the user's PIP_INDEX_URL); an extra index or a folder of links
  // would let newer files in, so neither is passed.
  env['PIP_INDEX_URL'] = (await asOfIndex(asOf)).url;
  for (const command of commands) {
    const r = await sandbox.execSetup(command, { env, timeoutMs: setupTimeoutMs });
    if (r.exitCode !== 0) {
      const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-15).join('\n');
      throw new SandboxError(
        `Task ${task}: its setup command \`${command}\` (python_env.setup, the repository's own install) ${r.timedOut ? 'ran out of time' : `failed with exit status ${r.exitCode ?? 'none'}`} in the working copy. Its tests would run without the repository installed, so the sandbox is not opened.\n${tail}`,
        'env-missing',
      );
    }
  }
  const status = await sandbox.exec(['git', 'status', '--porcelain']);
  if (status.exitCode !== 0 || status.stdout.trim() === '') return undefined;
  for (const args of [
    ['add', '-A'],
    [
      '-c',
      'user.name=graph-planner',
      '-c',
      'user.email=graph-planner@localhost',
      'commit',
      '-q',
      '--no-verify',
      '-m',
      'graph-planner: repository setup (python_env.setup)',
    ],
  ]) {
    const r = await sandbox.exec(['git', ...args]);
    if (r.exitCode !== 0)
      throw new SandboxError(`Task ${task}: committing what its setup commands changed failed (git ${args.join(' ')}): ${r.stderr.trim()}`, 'io');
  }
  const head = await sandbox.exec(['git', 'rev-parse', 'HEAD']);
  return head.stdout.trim();
}

export class LocalSandbox extends GitSandbox implements Sandbox {
  readonly backend = 'local' as const;
  private readonly running = new Set<number>();
  /** PATH, PYTHONPATH and friends of the task's built Python environment, when it names one. */
  private pythonVariables: Record<string, string> = {};
  /** The task's Python environment in words (`environmentWords`), when it names one. */
  environment?: string;
  /** Folders under the hidden home or /tmp that commands need to see (bubblewrap.ts's `foldersToShow`). */
  private shown: string[] = foldersToShow(process.env, []);
  /** The bwrap and bash session that run commands once the sandbox is open (holderShell.ts). */
  private shell: HolderShell | undefined;

  /** Under bubblewrap commands are written to the session's stdin; without it they are `bash -c` arguments. */
  get privateScripts(): boolean {
    return this.shell !== undefined;
  }

  private constructor(
    readonly spec: SandboxSpec,
    private readonly root: string,
    private readonly scratch: string,
    /** The commands' `HOME`: a folder of the sandbox's own, not the user's. */
    private readonly home: string,
    /** Whether commands run under bubblewrap, decided once per process. */
    readonly isolation: LocalIsolation,
  ) {
    super();
  }

  /**
   * Opens a working copy. `options.isolation` overrides the probe's answer (bubblewrap.ts), so the
   * benchmark can time plain spawning against bubblewrap in one process; everything else takes the probe's.
   */
  static async open(spec: SandboxSpec, options: { readonly isolation?: LocalIsolation } = {}): Promise<LocalSandbox> {
    const isolation = options.isolation ?? (await localIsolation());
    warnOnce(isolation);
    const problem = localRepoProblem(spec);
    if (problem !== undefined) throw problem.error;
    // localRepoProblem found it: a folder on this machine.
    const source = spec.localRepo ?? '';
    const home = await mkdtemp(join(tmpdir(), `gp-${spec.task.replace(/[^a-zA-Z0-9_.-]+/g, '-').slice(0, 40)}-`));
    const root = join(home, 'repo');
    const scratch = join(home, 'scratch');
    const sandbox = new LocalSandbox(spec, root, scratch, join(home, 'home'), isolation);
    try {
      await mkdir(scratch);
      await mkdir(join(home, 'home'));
      // The commands' /tmp under bubblewrap: one folder for the sandbox's life, so a file one
      // command leaves there (the JUnit report, junitWitness.ts) is there for the next.
      await mkdir(join(home, 'tmp'));
      await makeWorkingCopy(resolve(source), root, spec.baseCommit, spec.namedCommits);
      if (spec.baseCommit !== undefined) await checkOutBase(sandbox, spec.baseCommit, { task: spec.task, repo: resolve(source), backend: 'local' });
      sandbox.base = await gradingBase(sandbox, spec, root, resolve(source));
      if (spec.pythonEnv !== undefined) {
        const built = await builtEnvVariables(spec.pythonEnv, spec.task, root, home);
        sandbox.pythonVariables = built.variables;
        sandbox.environment = built.words;
        sandbox.shown = foldersToShow(process.env, built.folders);
        const setupBase = await runSetup(sandbox, spec.pythonEnv.setup ?? [], spec.task, built.asOf);
        if (setupBase !== undefined) sandbox.base = setupBase;
      }
      // Started last, once the folders commands need are known; until then each command had a bwrap of its own.
      if (isolation.kind === 'bubblewrap') {
        sandbox.shell = await HolderShell.start(isolation.bwrap, bubblewrapArgs(sandbox.layout({ network: spec.network, writable: [] })), {
          ...sandbox.commandEnvironment(),
          ...sandbox.pythonVariables,
          ...spec.env,
        });
      }
    } catch (error) {
      await rm(home, { recursive: true, force: true });
      throw error instanceof SandboxError ? error : new SandboxError(`Could not make a working copy of ${source}: ${(error as Error).message}`, 'io');
    }
    return sandbox;
  }

  get id(): string {
    return this.root;
  }

  protected get displayName(): string {
    return this.root;
  }

  get workdir(): string {
    return this.root;
  }

  scratchPath(name: string): string {
    return join(this.scratch, name);
  }

  /**
   * Paths as a task names them inside a container (`/testbed/app/x.py`) map onto the working copy,
   * so a task runs the same on both backends; other absolute paths are host paths, which commands
   * may use (`cwd`) but the engine's own reads and writes may not (`confined`).
   */
  private resolve(path: string): string {
    const workdir = this.spec.workdir.replace(/\/+$/, '');
    if (path === workdir || path.startsWith(`${workdir}/`)) return join(this.root, path.slice(workdir.length));
    return isAbsolute(path) ? path : join(this.root, path);
  }

  /**
   * `path` resolved for the engine's own reads and writes: inside the working copy or the scratch
   * folder once every symbolic link is followed, or a `SandboxError`. For a file that does not
   * exist yet, its nearest existing folder must be inside; a write onto a symbolic link is refused
   * even when the link points inside, since the write would land where the link says.
   */
  private realRoots: string[] | undefined;

  private async confined(path: string, purpose: 'read' | 'write'): Promise<string> {
    const full = this.resolve(path);
    // The working copy and scratch folder as the kernel names them, taken once: they never move.
    this.realRoots ??= await Promise.all([realpath(this.root), realpath(this.scratch)]);
    const roots = this.realRoots;
    // The nearest part of the path that exists as an entry, a dangling link included (existsSync
    // follows links, so it would step over one and let a write create the file where it points).
    let existing = full;
    while (dirname(existing) !== existing && (await lstat(existing).catch(() => undefined)) === undefined) existing = dirname(existing);
    const real = await realpath(existing).catch(() => undefined);
    const inside = real !== undefined && roots.some((root) => isWithin(real, root));
    if (!inside) {
      const where = real === undefined ? 'through a symbolic link that points nowhere' : `to ${real}`;
      throw new SandboxError(
        `Cannot ${purpose} ${path}: it leads outside the working copy ${this.root} (${where}); the local backend keeps the engine's reads and writes inside it.`,
        'invalid',
      );
    }
    if (purpose === 'write' && existing === full && (await lstat(full)).isSymbolicLink()) {
      throw new SandboxError(`Cannot write ${path}: it is a symbolic link, and the write would land where it points; remove the link first.`, 'invalid');
    }
    return full;
  }

  async exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    return this.run(command, options, { network: this.spec.network, writable: [] });
  }

  /**
   * A command of the repository's setup (`python_env.setup`): it reaches the as-of index on the
   * host's loopback (asOfIndex.ts), so it shares the host's network, and it may write pip's cache,
   * which the next working copy of the repository installs from. It runs before any patch, on the
   * base commit the dataset names, so it is the dataset's code, not the policy's.
   */
  async execSetup(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    return this.run(command, options, { network: true, writable: [pipCacheDir()] });
  }

  /** What a command may see and write under bubblewrap. */
  private layout(access: { network: boolean; writable: readonly string[] }): BubblewrapLayout {
    return {
      sandboxDir: dirname(this.root),
      tmp: join(dirname(this.root), 'tmp'),
      network: access.network,
      readOnly: this.shown,
      writable: access.writable,
      userHome: homedir(),
    };
  }

  /** The allow-listed environment every command starts from, and under bubblewrap its /tmp. */
  private commandEnvironment(): Record<string, string> {
    return { ...localCommandEnvironment(process.env, this.home), ...(this.isolation.kind === 'bubblewrap' ? { TMPDIR: '/tmp' } : {}) };
  }

  /** The program and arguments that run `script`: bash, under a bwrap of its own where bubblewrap runs. */
  private launcher(script: string, access: { network: boolean; writable: readonly string[] }): { file: string; args: string[] } {
    if (this.isolation.kind === 'none') return { file: 'bash', args: ['-c', script] };
    return { file: this.isolation.bwrap, args: [...bubblewrapArgs(this.layout(access)), '--', 'bash', '-c', script] };
  }

  /** Runs `script` in the sandbox's session (holderShell.ts). */
  private async runInShell(shell: HolderShell, command: Command, script: string, options: ExecOptions, limit: number): Promise<ExecResult> {
    const started = performance.now();
    try {
      const r = await shell.run(script, { timeoutMs: options.timeoutMs ?? this.spec.commandTimeoutMs, maxOutputBytes: limit, onOutput: options.onOutput });
      return execResultOf(r, started);
    } catch (error) {
      throw new SandboxError(
        `The local sandbox's session stopped while running \`${describeCommand(command)}\` (${(error as Error).message}); open a new sandbox.`,
        'io',
      );
    }
  }

  private async run(command: Command, options: ExecOptions, access: { network: boolean; writable: readonly string[] }): Promise<ExecResult> {
    this.assertOpen();
    const limit = options.maxOutputBytes ?? this.spec.outputLimitBytes;
    const stdout = new OutputCapture(limit, options.onOutput && ((text) => options.onOutput?.({ stream: 'stdout', text })));
    const stderr = new OutputCapture(limit, options.onOutput && ((text) => options.onOutput?.({ stream: 'stderr', text })));
    const memory = this.spec.limits.memoryBytes;
    const script = commandScript({ command, cwd: this.resolve(options.cwd ?? '.'), env: options.env, memoryKiB: memory === null ? undefined : memory / 1024 });
    const shell = this.shell;
    if (shell !== undefined && shell.alive && access.network === this.spec.network && access.writable.length === 0)
      return this.runInShell(shell, command, script, options, limit);
    const started = performance.now();
    // `detached` makes the child a process-group leader, so a timeout can kill its whole tree.
    // Under bubblewrap, killing the group kills bwrap (or, in the holder, nsenter and unshare), and
    // that ends the command's own PID namespace, with every process in it, even one that left the group.
    // bwrap itself gets the command's environment, not ours: it is the PID namespace's first
    // process, and a command can read its environment in /proc/1/environ.
    const env = { ...this.commandEnvironment(), ...this.pythonVariables, ...this.spec.env };
    const { file, args } = this.launcher(script, access);
    const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    const pid = child.pid;
    if (pid !== undefined) this.running.add(pid);
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, options.timeoutMs ?? this.spec.commandTimeoutMs);
    try {
      const exitCode = await new Promise<number | null>((done, fail) => {
        child.on('error', fail);
        child.on('close', (code) => done(code));
        // A command may leave a background process holding its output pipes open; once the
        // command itself has exited, stop waiting for the pipes after a short grace period.
        child.on('exit', () => {
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
          }, 500).unref();
        });
      });
      return {
        exitCode: timedOut ? null : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        durationMs: performance.now() - started,
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
        stdoutBytes: stdout.bytes,
        stderrBytes: stderr.bytes,
      };
    } finally {
      clearTimeout(timer);
      if (pid !== undefined) this.running.delete(pid);
    }
  }

  async readFile(path: string): Promise<Buffer> {
    this.assertOpen();
    const full = await this.confined(path, 'read');
    try {
      return await readFile(full);
    } catch (error) {
      throw new SandboxError(`Cannot read ${path} in the working copy ${this.root}: ${(error as Error).message}`, 'io');
    }
  }

  async writeFile(path: string, content: Buffer | string, mode = 0o644): Promise<void> {
    this.assertOpen();
    const full = await this.confined(path, 'write');
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content, { mode });
  }

  async listFiles(dir = '.'): Promise<string[]> {
    this.assertOpen();
    // Entries are taken without following links (a link is not a file here), so only the base can lead out.
    const base = await this.confined(dir, 'read');
    const out: string[] = [];
    for (const entry of await readdir(base, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const rel = relative(base, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (rel.split('/')[0] !== '.git') out.push(rel);
    }
    return out.sort();
  }

  async readTree(dir = '.', options: ReadTreeOptions = {}): Promise<TreeFile[]> {
    const base = await this.confined(dir, 'read');
    const max = options.maxFileBytes ?? 1024 * 1024;
    const files: TreeFile[] = [];
    for (const rel of await this.listFiles(dir)) {
      if (options.include && !options.include(rel)) continue;
      const full = join(base, rel);
      const info = await stat(full);
      if (info.size > max) continue;
      files.push({ path: rel, content: await readFile(full), mode: info.mode & 0o7777 });
    }
    return files;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const pid of this.running) killGroup(pid);
    this.shell?.close();
    await rm(dirname(this.root), { recursive: true, force: true });
  }
}

let warned = false;

/**
 * Node prints a process warning on stderr; once per process, as the first local sandbox opens. It
 * says what the isolation is and is not, or that there is none and why.
 */
function warnOnce(isolation: LocalIsolation): void {
  if (warned) return;
  warned = true;
  process.emitWarning(localBackendWarning(isolation.kind === 'bubblewrap' ? undefined : isolation.reason), { code: 'GP_LOCAL_BACKEND' });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has already exited.
  }
}
