/**
 * `gp rollout FILE... [flags]` and `gp eval FILE... [flags]`: resolve the config, load the tasks,
 * take the run folder's lock, run the episodes into the run directory with a bounded pool, print a
 * summary. Exit codes: 0 when the run ran (whatever it resolved), 1 when every episode failed to
 * run, 2 for usage, config and task file errors and a run folder in use, 75 when the infrastructure
 * failed episodes (a resume runs them), 130 when interrupted.
 */
import { resolve } from 'node:path';
import { parseConfigFlags } from '../config/index.js';
import {
  checkAgentConfig,
  containerReaper,
  embeddedLine,
  episodeDepsFromConfig,
  checksDisk,
  loadConfig,
  loadPlannerPrompt,
  startModelServers,
  type ModelServers,
  type ModelSetup,
  type PlannerPrompt,
  loadRolloutTasks,
  moveRunFolder,
  newestUnfinishedRun,
  planRunFolder,
  rolloutFlagOverrides,
  rolloutOptions,
  loadForkPrefix,
  writeResolvedConfig,
  type RunFolder,
} from '../launch/index.js';
import { planEpisodes, runRollout, type EpisodeDeps, type ForkPrefix, type PlannedTask, type RolloutResult } from '../rollout/index.js';
import { adapterDir, cliCommand, trainerPython, hostEpisodeRunner, startSandboxHosts, type SandboxHosts } from '../cluster/index.js';
import { LineAppender } from '../util/appendLines.js';
import { RunLock, runLayout, withoutRunFolderFlags, writeLaunchRecord } from '../runs/index.js';
import { mkdir } from 'node:fs/promises';
import { ioFailure, ioFailureAdvice } from '../util/ioFailure.js';
import { isoTimestamp } from '../util/time.js';
import { withDeadline } from '../util/deadline.js';
import { errorMessage } from '../util/errors.js';
import { printCapacityPreflight } from './capacityPreflight.js';
import { printConfigFindings } from './configFindings.js';
import { intFlag, type Io } from './output.js';
import { RolloutProgress, terminalProgressSink, type ProgressSink } from './progress.js';
import { installInterrupt } from './interrupt.js';
import { agentNames, agentUsesModel } from '../protocol/agentNames.js';
import { backendFlagUsage, parseCommandArgs, usageError, type CommandUsage } from './args.js';
import { backendLine, displayPath, episodeTable, evalSummary, infrastructureLines, interruptedLines, modelLines, totalsLine } from './rolloutSummary.js';

export type RolloutCommand = 'rollout' | 'eval';

const flagsLine = `[--config YAML] [--agent ${agentNames.join('|')} [--fallback]] [--task ID]... [--limit N] [--parallel N]`;
const runLine = `${backendFlagUsage} [--run-name NAME | --run-dir DIR] [--resume] [--max-steps N] [--json]`;
const forkLine = '[--fork-of FILE --fork-step N]';

export const rolloutUsage = `gp rollout FILE... ${flagsLine}
             [--attempts N] ${runLine}
             ${forkLine}
      Run the agent on each task (x attempts) in its sandbox, --parallel at once (default
      rollout.parallel). Writes <output_dir>/<run>/: resolved_config.yaml, status.json,
      events.jsonl, trajectories/<episode>.jsonl, report.json. Re-running into an existing
      run, or --resume (the newest unfinished run when none is named), skips finished episodes
      and redoes the others. One process at a time owns a run folder (<run>/run.lock).
      Ctrl-C ends the running episodes and closes their sandboxes. Episodes the infrastructure
      failed (daemon or sandbox lost, disk full, out of memory, model server gone) are not
      counted, and --resume runs them again.
      --agent model asks backends.planner_endpoint, or with backends.planner_backend embedded
      (configs/experiments/embedded_model.yaml) starts the small model this machine's setup
      installed for the run. The summary counts the steps its own replies drove, the replies
      that failed to parse and why, tokens and time. --fallback (rollout.fallback_to_rule) lets
      the rule agent take a step whose reply did not parse; its steps and the resolved episodes
      that needed it are counted apart ("resolved by the model alone: N").
      --fork-of FILE --fork-step N makes each episode a fork of that recorded episode: its steps
      1..N-1 replayed and checked against the recording first (what gp trajectory fork runs).
  gp eval FILE... ${flagsLine}
             ${runLine} [--ray ADDRESS [--service-host ADDRESS]]
      A rollout with one attempt per task that ends with a SWE-bench-style summary (resolved
      rate, per-task outcome, why each unresolved task failed) and reports/<task>/report.json.
      --ray runs its episodes on that Ray cluster (dashboard HOST:PORT): a sandbox host on every
      node that offers gp_sandbox_slots runs them with its own Docker, rollout.parallel at once
      over all hosts, and their records come back into this run (docs/sandbox-hosts.md). An
      episode whose host is lost runs again on another host once; --resume works as for a local run.
      --service-host is where the hosts register (127.0.0.1 by default; this machine's address
      when the nodes are other machines, which then listen on their own addresses).`;

/** The part of `rolloutUsage` about one of its two commands: its help and its usage errors. */
export function rolloutUsageOf(command: RolloutCommand): CommandUsage {
  const evalStart = rolloutUsage.indexOf('\n  gp eval ');
  return { name: command, usage: command === 'rollout' ? rolloutUsage.slice(0, evalStart) : rolloutUsage.slice(evalStart + 3) };
}

/** What differs between a terminal session and a test: where progress goes and how Ctrl-C arrives. */
export interface RolloutRuntime {
  /** A raw progress sink (a terminal); absent: plain progress lines through `io.err`. */
  readonly progress?: ProgressSink;
  /**
   * Calls `first` on the first SIGINT/SIGTERM and `force` on the next; returns the removal of the
   * handlers. `force` cleans up what it can before the process exits.
   */
  readonly onInterrupt: (first: () => void, force: () => Promise<void>) => () => void;
}

export function processRuntime(): RolloutRuntime {
  const progress = terminalProgressSink(process.stderr);
  return {
    ...(progress === undefined ? {} : { progress }),
    onInterrupt: (first, force) => {
      const interrupt = installInterrupt({ onFirst: first, onForce: force });
      return () => interrupt.dispose();
    },
  };
}

interface Parsed {
  readonly files: string[];
  readonly configFile: string | undefined;
  readonly flags: ReturnType<typeof parseConfigFlags>['flags'];
  readonly tasks: string[];
  readonly limit: number | undefined;
  readonly runDir: string | undefined;
  readonly resume: boolean;
  readonly json: boolean;
  readonly ray: string | undefined;
  readonly serviceHost: string | undefined;
  /** `--fork-of FILE --fork-step N`: a fork's parent trajectory and first live step (launch/forkLaunch.ts). */
  readonly fork: { readonly file: string; readonly step: number } | undefined;
}

/** Parses the arguments; undefined after printing the usage error. */
function parseRolloutArgs(command: RolloutCommand, argv: readonly string[], io: Io, cwd: string): Parsed | undefined {
  const config = parseConfigFlags(argv);
  const usage = rolloutUsageOf(command);
  const parsed = parseCommandArgs(usage, config.rest, rolloutOptions, io);
  if (!parsed.ok) return undefined;
  const errors = parsed.errors;
  errors.push(...config.errors);
  const v = parsed.values;
  if (parsed.positionals.length === 0) errors.push('name at least one task file (JSONL).');
  if (v.config !== undefined && config.flags.configFile !== undefined) errors.push('give the config once, with --config or --config-file.');
  if (v['run-dir'] !== undefined && config.flags.overrides.some((o) => o.flag.startsWith('--run-name'))) errors.push('give --run-name or --run-dir, not both.');
  if (command === 'eval' && v.attempts !== undefined) errors.push('eval runs one attempt per task; use gp rollout --attempts N for more.');
  const extra = rolloutFlagOverrides(v, errors);
  const limit = intFlag('--limit', v.limit, errors);
  if (v.ray !== undefined && command !== 'eval') errors.push('--ray is for gp eval; gp train --ray trains on a cluster.');
  if (v['service-host'] !== undefined && v.ray === undefined) errors.push('--service-host needs --ray ADDRESS.');
  if ((v['fork-of'] === undefined) !== (v['fork-step'] === undefined)) errors.push('--fork-of FILE and --fork-step N go together.');
  const forkStep = intFlag('--fork-step', v['fork-step'], errors);
  if (v['fork-of'] !== undefined && command === 'eval') errors.push('a fork is a rollout: use gp trajectory fork, or gp rollout --fork-of.');
  if (v['fork-of'] !== undefined && v.ray !== undefined) errors.push('a fork runs on this machine; --ray is not for forks.');
  if (errors.length > 0) {
    usageError(usage, io, errors);
    return undefined;
  }
  return {
    files: parsed.positionals,
    configFile: v.config ?? config.flags.configFile,
    flags: { ...config.flags, overrides: [...config.flags.overrides, ...extra] },
    tasks: v.task ?? [],
    limit,
    runDir: v['run-dir'],
    resume: v.resume === true,
    json: v.json === true,
    ray: v.ray,
    serviceHost: v['service-host'],
    fork: v['fork-of'] === undefined || forkStep === undefined ? undefined : { file: resolve(cwd, v['fork-of']), step: forkStep },
  };
}

/**
 * The config through the one road every command takes (`launch/loadConfig.ts`): the same checks
 * and the same verdict as `gp config check` on the same file and flags. Errors refuse the run;
 * warnings are printed and the run goes on.
 */
async function resolveRun(command: RolloutCommand, argv: readonly string[], p: Parsed, io: Io, cwd: string): Promise<RunFolder | undefined> {
  // Without a YAML, findings can only come from flags; they are labelled with the command.
  const label = p.configFile ?? `gp ${command}`;
  // The defaults' dataset and model paths are placeholders, so without a YAML the disk rules
  // would only report that they are missing.
  const loaded = await loadConfig({ file: p.configFile, flags: p.flags, cwd, disk: checksDisk(p.configFile) });
  if (loaded.kind === 'unreadable') {
    io.err(`${loaded.file}: ${loaded.message}.`);
    return undefined;
  }
  const { resolution } = loaded;
  printConfigFindings(label, resolution, io);
  if (resolution.verdict === 'errors' || resolution.config === undefined) {
    io.err(`gp ${command}: the config has errors; nothing was run.`);
    return undefined;
  }
  // With --ray, the episodes at once against the cluster's sandbox slots; a local run says nothing.
  await printCapacityPreflight({ label, resolution, command, ray: p.ray, noteWhenUnknown: false }, io);
  return planRunFolder(resolution.config, { command, now: new Date(), commandLine: ['gp', command, ...argv].join(' '), ignored: resolution.ignored });
}

/** The run directory: --run-dir, the named run, the newest unfinished run for a bare --resume, or a new one. */
async function chooseRunDir(command: RolloutCommand, p: Parsed, run: RunFolder, io: Io, cwd: string): Promise<RunFolder | undefined> {
  if (p.runDir !== undefined) return moveRunFolder(run, resolve(cwd, p.runDir));
  if (!p.resume || run.config.logging.wandb.run_name !== null) return run;
  const outputDir = run.config.logging.output_dir;
  const newest = await newestUnfinishedRun(outputDir, `gp ${command}`);
  if (newest === undefined) {
    io.err(`gp ${command}: --resume found no unfinished gp ${command} run under ${outputDir}; name one with --run-name or --run-dir.`);
    return undefined;
  }
  io.err(`Resuming ${newest.name} (${newest.status?.state ?? 'unknown'}, started ${newest.status?.started_at ?? '?'}).`);
  return moveRunFolder(run, newest.dir);
}

function resumeCommand(command: RolloutCommand, argv: readonly string[], runDir: string, cwd: string): string {
  return ['gp', command, ...withoutRunFolderFlags(argv), '--run-dir', displayPath(runDir, cwd), '--resume'].join(' ');
}

export async function rolloutCommand(
  command: RolloutCommand,
  argv: readonly string[],
  io: Io,
  cwd: string,
  runtime: RolloutRuntime = processRuntime(),
): Promise<number> {
  const p = parseRolloutArgs(command, argv, io, cwd);
  if (p === undefined) return 2;
  const resolved = await resolveRun(command, argv, p, io, cwd);
  if (resolved === undefined) return 2;
  const run = await chooseRunDir(command, p, resolved, io, cwd);
  if (run === undefined) return 2;
  const loaded = await loadRolloutTasks({
    files: p.files,
    taskIds: p.tasks,
    limit: p.limit,
    cwd,
    command: `gp ${command}`,
    allowedMountRoots: run.config.sandbox.allowed_mount_roots,
  });
  if (!loaded.ok) {
    for (const m of loaded.problems) io.err(m);
    return 2;
  }
  const fork = p.fork === undefined ? undefined : await forkOf(p.fork, loaded.tasks, io);
  if (fork === null) return 2;
  let prompt: PlannerPrompt | undefined;
  try {
    checkAgentConfig(run.config);
    if (agentUsesModel(run.config.rollout.agent)) prompt = await loadPlannerPrompt(run.config, cwd);
  } catch (error) {
    io.err(`gp ${command}: ${errorMessage(error)}`);
    return 2;
  }
  // The embedded model starts before the run folder exists, so a machine without it leaves none;
  // a sharded evaluation's shards start their own on their nodes.
  let servers: ModelServers | undefined;
  if (p.ray === undefined) {
    try {
      servers = await startModelServers(run.config, {
        onUnexpectedExit: (message) =>
          io.err(`warning: ${message}. Episodes that still need it end as infrastructure failures (model-unreachable); --resume runs them again.`),
      });
    } catch (error) {
      io.err(`gp ${command}: ${errorMessage(error)}`);
      return 2;
    }
    if (servers.embedded !== undefined) (p.json ? io.err : io.out)(embeddedLine(servers.embedded));
  }
  try {
    return await launchRollout(
      command,
      argv,
      p,
      run,
      { tasks: loaded.tasks, fork },
      { ...(servers === undefined ? {} : { servers }), ...(prompt === undefined ? {} : { prompt }) },
      io,
      cwd,
      runtime,
    );
  } finally {
    await servers?.close();
  }
}

/** What a rollout runs: its tasks, and a fork's prefix when it is one. */
interface Planned {
  readonly tasks: readonly PlannedTask[];
  readonly fork: ForkPrefix | undefined;
}

/**
 * A fork's prefix from its flags, checked against the tasks: a fork continues its parent's one
 * task. Null after saying why it cannot run.
 */
async function forkOf(flags: { readonly file: string; readonly step: number }, tasks: readonly PlannedTask[], io: Io): Promise<ForkPrefix | null> {
  const loaded = await loadForkPrefix(flags.file, flags.step);
  if (!loaded.ok) {
    io.err(`gp rollout: ${loaded.message}`);
    return null;
  }
  const taskId = tasks[0]?.task.task_id;
  const parentTask = loaded.prefix.taskId;
  if (tasks.length !== 1 || taskId !== parentTask) {
    io.err(
      `gp rollout: a fork continues its parent's task ${parentTask}; the task files and --task select ${tasks.length === 1 ? `task ${taskId ?? '?'}` : `${tasks.length} tasks`}. Select it alone with --task ${parentTask}.`,
    );
    return null;
  }
  return loaded.prefix;
}

async function launchRollout(
  command: RolloutCommand,
  argv: readonly string[],
  p: Parsed,
  run: RunFolder,
  planned: Planned,
  models: ModelSetup,
  io: Io,
  cwd: string,
  runtime: RolloutRuntime,
): Promise<number> {
  let deps;
  try {
    deps = episodeDepsFromConfig(run.config, run.name, run.dir, models);
  } catch (error) {
    io.err(`gp ${command}: ${errorMessage(error)}`);
    return 2;
  }
  // The lock is taken once the launch is known to be valid, so a refused launch leaves no folder.
  let lock: RunLock;
  try {
    await mkdir(run.dir, { recursive: true });
    const taken = await RunLock.acquire(run.layout.lock, ['gp', command, ...argv].join(' '));
    if (!taken.ok) {
      io.err(`gp ${command}: ${displayPath(run.dir, cwd)}: ${taken.message}`);
      return 2;
    }
    if (taken.broke !== undefined) io.err(`gp ${command}: took over the run folder from pid ${taken.broke.pid}, which is gone.`);
    lock = taken.lock;
  } catch (error) {
    return machineFailure(command, error, io);
  }
  try {
    return await lockedRollout(command, argv, p, run, planned, deps, io, cwd, runtime);
  } catch (error) {
    return machineFailure(command, error, io);
  } finally {
    await lock.release().catch(() => undefined);
  }
}

/**
 * A failure of the machine (a full disk, a failing file system) while the run folder is written
 * is said in one line with what to do, not as a stack trace; anything else is a bug and rethrown.
 */
function machineFailure(command: RolloutCommand, error: unknown, io: Io): number {
  const failure = ioFailure(error);
  if (failure === undefined) throw error;
  io.err(`gp ${command}: ${ioFailureAdvice(failure)}; a run that had started continues with --resume.`);
  return 75;
}

async function lockedRollout(
  command: RolloutCommand,
  argv: readonly string[],
  p: Parsed,
  run: RunFolder,
  planned: Planned,
  deps: EpisodeDeps,
  io: Io,
  cwd: string,
  runtime: RolloutRuntime,
): Promise<number> {
  await writeResolvedConfig(run, p.configFile === undefined ? '(defaults)' : resolve(cwd, p.configFile));
  // How the run was launched, so the editor (or a person) can resume it or launch it again.
  await writeLaunchRecord(run.layout.launch, {
    command,
    args: [...argv],
    cwd,
    agent: run.config.rollout.agent,
    written_at: isoTimestamp(new Date()),
    ...(planned.fork === undefined ? {} : { fork: planned.fork.parent }),
  });
  const { tasks } = planned;
  const say = p.json ? io.err : io.out;
  say(`run dir: ${displayPath(run.dir, cwd)}`);

  const config = run.config;
  const attempts = command === 'eval' ? 1 : config.rollout.attempts;
  const episodes = planEpisodes(tasks, attempts, planned.fork);
  const progress = new RolloutProgress(runtime.progress ?? { isTTY: false, write: (t) => io.err(t.replace(/\n$/, '')) });
  const controller = new AbortController();
  const reaper = containerReaper(config, run.name);
  const removeHandlers = runtime.onInterrupt(
    () => {
      progress.stop();
      io.err('Interrupted: starting no more episodes; ending the running ones and closing their sandboxes (Ctrl-C again to force).');
      controller.abort();
    },
    async () => {
      io.err("Interrupted again: removing this run's containers and exiting.");
      if (reaper) await withDeadline(reaper(true), 10_000).catch(() => undefined);
    },
  );
  let result: RolloutResult;
  let hosts: SandboxHosts | undefined;
  try {
    if (p.ray !== undefined) {
      hosts = await startHostsFor(p.ray, p.serviceHost ?? '127.0.0.1', run, tasks, controller.signal, io);
      if (hosts === undefined) return 1;
    }
    result = await runRollout(episodes, {
      runDir: run.dir,
      runName: run.name,
      command: ['gp', command, ...argv].join(' '),
      agent: config.rollout.agent,
      fallbackEnabled: agentUsesModel(config.rollout.agent) && config.rollout.fallback_to_rule,
      dataset: p.files.join(', '),
      parallel: config.rollout.parallel,
      signal: controller.signal,
      deps,
      ...(hosts === undefined ? {} : { runEpisode: hostEpisodeRunner(hosts.pool, { runDir: run.dir, retries: 1 }) }),
      observer: progress,
      ...(reaper === undefined ? {} : { reapContainers: reaper }),
    });
  } finally {
    progress.stop();
    removeHandlers();
    await hosts?.stop();
  }
  for (const w of result.warnings) io.err(`warning: ${w}`);
  printSummary(command, result, run.dir, p.json, io, cwd);
  if (result.state === 'interrupted') {
    for (const l of interruptedLines(result, resumeCommand(command, argv, run.dir, cwd))) io.err(l);
    return 130;
  }
  for (const l of infrastructureLines(result.report, resumeCommand(command, argv, run.dir, cwd))) io.err(l);
  if (result.infrastructure.length > 0 || result.report.infrastructure_failures !== undefined) {
    io.err(`gp ${command}: ${result.reason ?? 'the infrastructure failed'}`);
    return 75;
  }
  if (result.state === 'failed') io.err(`gp ${command}: ${result.reason ?? 'the run failed'}`);
  if (result.state === 'failed') return 1;
  // An evaluation's resolved rate is only worth its denominator: a task that could not run (its
  // sandbox did not open, its base commit is missing) makes the evaluation fail, not look smaller.
  const couldNotRun = result.report.tasks.filter((t) => t.termination_reason === 'error');
  if (command === 'eval' && couldNotRun.length > 0) {
    io.err(
      `gp eval: ${couldNotRun.length} of ${result.report.total} task(s) could not run: ${couldNotRun
        .slice(0, 5)
        .map((t) => `${t.task_id} (${t.failure_reason ?? 'error'})`)
        .join('; ')}${couldNotRun.length > 5 ? '; …' : ''}`,
    );
    return 1;
  }
  return 0;
}

function printSummary(command: RolloutCommand, result: RolloutResult, runDir: string, json: boolean, io: Io, cwd: string): void {
  if (json) {
    io.out(JSON.stringify(result.report, null, 2));
    return;
  }
  if (result.report.total > 0) episodeTable(result.report, runDir, cwd).forEach((l) => io.out(l));
  if (command === 'eval') evalSummary(result.report, runDir, cwd).forEach((l) => io.out(l));
  io.out(totalsLine(result.report));
  modelLines(result.report).forEach((l) => io.out(l));
  io.out(backendLine(result.backend));
  io.out(`run dir: ${displayPath(runDir, cwd)}  report: ${displayPath(runLayout(runDir).report, cwd)}`);
}

/**
 * `gp eval --ray`: the run's sandbox hosts on the cluster (cluster/sandboxHostsJob.ts), their
 * output in the run's log; undefined, after saying why, when they could not start.
 */
async function startHostsFor(
  ray: string,
  listen: string,
  run: RunFolder,
  tasks: readonly PlannedTask[],
  signal: AbortSignal,
  io: Io,
): Promise<SandboxHosts | undefined> {
  const adapter = adapterDir();
  const cli = cliCommand();
  if (adapter === undefined || cli === undefined) {
    io.err(
      'gp eval --ray: the Python adapter (python/graph_planner_verl) or dist/cli.js is not part of this installation; run gp from a built clone of the repository.',
    );
    return undefined;
  }
  const log = new LineAppender(run.layout.runLog, 'terminate');
  try {
    return await startSandboxHosts({
      ray,
      runName: run.name,
      runDir: run.dir,
      resolvedConfig: run.layout.resolvedConfig,
      tasks,
      scriptedPolicy: false,
      episodeDeadlineMs: (run.config.env.episode_timeout + 300) * 1000,
      python: trainerPython(undefined),
      adapterDir: adapter,
      cli,
      listen,
      onLine: (line) => void log.append(`${line}\n`).catch(() => undefined),
      log: (line) => io.err(line),
      signal,
    });
  } catch (error) {
    io.err(`gp eval --ray: ${errorMessage(error)}`);
    return undefined;
  }
}
