/**
 * `gp sandbox host`: one sandbox host (cluster/sandboxHost.ts, docs/sandbox-hosts.md). A Ray actor
 * starts it on its node with the run's host spec; people do not. It runs until its standard input
 * closes (the actor that started it is gone, however it died) or it is sent SIGTERM or SIGINT,
 * then ends its episodes, removes its containers and its scratch folder, and exits.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostSpecSchema, type HostSpec } from '../protocol/sandboxHosts.js';
import { episodeDepsFromConfig, loadConfig, loadRolloutTasks } from '../launch/index.js';
import { imagesPresent, processAlive, reapContainers } from '../sandbox/index.js';
import { SandboxHost } from '../cluster/index.js';
import { scriptedSmokePolicy } from '../trainer/index.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError } from './args.js';
import { intFlag, type Io } from './output.js';

export const sandboxHostUsage = `gp sandbox host --spec FILE|- --node NODE --slots N [--listen ADDRESS]
      One sandbox host of a Ray cluster (started by Ray for gp train --ray and gp eval --ray, not by hand):
      runs the run's episodes on this node's Docker until its standard input closes.`;

const command = { name: 'sandbox host', usage: sandboxHostUsage };

const scratchPrefix = 'gp-sandbox-host-';
const ownerFile = 'owner.pid';

/**
 * Removes the scratch folders of hosts on this machine whose process is gone: a host killed
 * outright (Ray kills an actor's children with it) had no time to remove its own.
 */
async function sweepDeadScratch(): Promise<void> {
  const names = (await readdir(tmpdir()).catch(() => [] as string[])).filter((n) => n.startsWith(scratchPrefix));
  for (const name of names) {
    const pid = Number((await readFile(join(tmpdir(), name, ownerFile), 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) await rm(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** Reads standard input up to its first newline and leaves the rest unread. */
function firstLineOfStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline === -1) return;
      process.stdin.off('data', onData);
      process.stdin.off('end', onEnd);
      process.stdin.pause();
      resolve(text.slice(0, newline));
    };
    const onEnd = (): void => reject(new Error('standard input closed before the spec line'));
    process.stdin.on('data', onData);
    process.stdin.once('end', onEnd);
  });
}

export const sandboxHostOptions = { spec: { type: 'string' }, node: { type: 'string' }, slots: { type: 'string' }, listen: { type: 'string' } } as const;

export async function sandboxHostCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseCommandArgs(command, argv, sandboxHostOptions, io);
  if (!args.ok) return args.exit;
  const v = args.values;
  const errors: string[] = [];
  const slots = intFlag('--slots', v.slots, errors);
  if (v.spec === undefined) errors.push('--spec FILE is required.');
  if (v.node === undefined) errors.push('--node NODE is required.');
  if (slots === undefined) errors.push('--slots N is required.');
  if (errors.length > 0 || v.spec === undefined || v.node === undefined || slots === undefined) return usageError(command, io, errors);

  let spec: HostSpec;
  try {
    // `-`: the spec is the first line of standard input, which then stays open as the host's lifeline.
    const text = v.spec === '-' ? await firstLineOfStdin() : await readFile(v.spec, 'utf8');
    const parsed = hostSpecSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    spec = parsed.data;
  } catch (error) {
    io.err(`${v.spec}: not a host spec: ${errorMessage(error)}`);
    return 2;
  }
  await sweepDeadScratch();
  const scratch = await mkdtemp(join(tmpdir(), scratchPrefix));
  await writeFile(join(scratch, ownerFile), String(process.pid));
  const configFile = join(scratch, 'resolved_config.yaml');
  const tasksFile = join(scratch, 'tasks.jsonl');
  await writeFile(configFile, spec.config_text, { mode: 0o600 });
  await writeFile(tasksFile, spec.tasks_text, { mode: 0o600 });
  const loaded = await loadConfig({
    file: configFile,
    flags: { configFile: undefined, yamlOnly: false, printConfig: false, overrides: [] },
    cwd: scratch,
    disk: false,
  });
  if (loaded.kind === 'unreadable' || loaded.resolution.config === undefined) {
    io.err(`sandbox host: the run's config does not load: ${loaded.kind === 'unreadable' ? loaded.message : 'it has errors'}`);
    return 2;
  }
  const config = loaded.resolution.config;
  const tasks = await loadRolloutTasks({
    files: [tasksFile],
    taskIds: [],
    limit: undefined,
    cwd: scratch,
    command: 'gp sandbox host',
    allowedMountRoots: config.sandbox.allowed_mount_roots,
  });
  if (!tasks.ok) {
    io.err(`sandbox host: the run's tasks do not load: ${tasks.problems.join(' ')}`);
    return 2;
  }
  const images = [...new Set(tasks.tasks.flatMap((t) => (t.task.sandbox.docker_image === undefined ? [] : [t.task.sandbox.docker_image])))];
  const node = v.node;
  const host = new SandboxHost({
    spec,
    node,
    slots,
    listen: v.listen ?? '127.0.0.1',
    scratch: join(scratch, 'run'),
    tasks: new Map(tasks.tasks.map((t) => [t.task.task_id, t])),
    depsFor: (runDir) => episodeDepsFromConfig(config, spec.run_name, runDir, {}, node),
    ...(spec.scripted_policy ? { scriptedPolicy: scriptedSmokePolicy } : {}),
    images: () => imagesPresent(images),
    reap: async (includeLive) =>
      (await reapContainers(includeLive ? { run: spec.run_name, includeLive: true, ownOnly: true } : { run: spec.run_name })).removed.length,
    log: (line) => io.err(line),
    onShutdown: () => shutdown('the front door asked it to'),
  });
  let shutdown: (why: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    shutdown = resolve;
    process.stdin.on('end', () => resolve('its standard input closed'));
    process.stdin.on('error', () => resolve('its standard input failed'));
    process.stdin.resume();
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  try {
    await host.start();
  } catch (error) {
    io.err(`sandbox host: ${errorMessage(error)}`);
    await host.stop(() => rm(scratch, { recursive: true, force: true })).catch(() => undefined);
    return 1;
  }
  const why = await stopped;
  io.err(`sandbox host ${host.id}: stopping (${why})`);
  await host.stop(() => rm(scratch, { recursive: true, force: true }));
  // The lifeline is no longer needed; left open, it would keep the process waiting.
  process.stdin.destroy();
  return 0;
}
