/**
 * `gp train`: resolve and preflight the experiment through the one road every command takes,
 * then run one training attempt (trainer/trainRun.ts) and say how it ended.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfigFlags, type ExperimentConfig } from '../config/index.js';
import {
  containerReaper,
  episodeDepsFromConfig,
  loadConfig,
  loadPlannerPrompt,
  loadRolloutTasks,
  moveRunFolder,
  planRunFolder,
  writeResolvedConfig,
} from '../launch/index.js';
import type { PlannedTask } from '../rollout/index.js';
import {
  canaryConfig,
  canaryDefaults,
  canarySettings,
  runTraining,
  trainerArgv,
  smokeConfig,
  smokePolicies,
  smokeSettings,
  writeCanaryFamily,
  type SmokePolicy,
  type SmokeSettings,
} from '../trainer/index.js';
import { adapterDir, cliCommand, trainerPython, visibleGpus } from '../cluster/index.js';
import { mkdir, readFile } from 'node:fs/promises';
import { RunLock, writeLaunchRecord } from '../runs/index.js';
import { isoTimestamp } from '../util/time.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError } from './args.js';
import { printCapacityPreflight } from './capacityPreflight.js';
import { printConfigFindings } from './configFindings.js';
import { installInterrupt } from './interrupt.js';
import { intFlag, type Io } from './output.js';
import { displayPath } from './rolloutSummary.js';

export const trainUsage = `gp train [CONFIG] [--config YAML] [--tasks FILE]... [--val-tasks FILE]... [--task ID]... [--limit N]
          [--smoke [--steps N] [--smoke-policy model|scripted]] [--canary [--steps N] [--seeds N]]
          [--ray ADDRESS] [--python PATH] [--stall-timeout S]
          [--service-host HOST] [--run-name NAME | --run-dir DIR] [--dry-run]
      Train the planner with Verl's GRPO through our environment: writes the training parquet
      files, starts the environment service (token in <run>/env_service.json, 0600), and runs
      python -m verl.trainer.main_ppo with the config's Verl overrides, as a local process or,
      with --ray, as a Ray job on that cluster's dashboard (http://HOST:8265). Tasks default to
      paths.dataset_train and paths.dataset_val. Verl's metrics go to <run>/metrics.jsonl, its
      output to <run>/run.log. --smoke runs the whole path on CPU, what to run first to check
      an installation. Its policy (--smoke-policy) is by default the real pretrained model
      SmolLM2-135M-Instruct (bash scripts/setup-language-model.sh installs it): each reply is
      sampled from the weights the smoke's actor update changes, episodes end after 2 replies,
      and <run>/smoke/checks.json records the checks and the time of generation, environment and
      update. --smoke-policy scripted answers with the rule agent instead, through a tiny model
      built here: deterministic, and quicker.
      --canary answers "does this pipeline learn?" on CPU (about half an hour on two cores):
      SmolLM2-135M-Instruct trained with GRPO through our environment on tasks whose fix is one
      operator, beside a control run from the same seeds and data whose update is off, the same
      held-out tasks scored before and after; it prints "learned: ..." or "did not learn: ..."
      with the run-to-run spread over --seeds seeds (default 2), --steps steps each (default 20).
      The metrics page shows both runs' curves.
      A run that shows no log line, metric or episode for --stall-timeout seconds (default 600)
      is stopped. --service-host binds the environment service to another address than
      127.0.0.1 (a cluster interface, when Verl's workers run on other nodes; the token is still
      required). --run-dir of an earlier run resumes it: a new attempt (its own Verl metrics
      file), and Verl continues from the run's latest checkpoint (trainer.resume_mode=auto).
      --dry-run prints the Verl command line and starts nothing. Ctrl-C stops the trainer and
      closes every episode.`;

const usage = { name: 'train', usage: trainUsage };

export const trainOptions = {
  config: { type: 'string' },
  tasks: { type: 'string', multiple: true },
  'val-tasks': { type: 'string', multiple: true },
  task: { type: 'string', multiple: true },
  limit: { type: 'string' },
  smoke: { type: 'boolean' },
  canary: { type: 'boolean' },
  seeds: { type: 'string' },
  steps: { type: 'string' },
  'smoke-policy': { type: 'string' },
  ray: { type: 'string' },
  python: { type: 'string' },
  'stall-timeout': { type: 'string' },
  'run-dir': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'service-host': { type: 'string' },
} as const;

function smokePolicyFlag(value: string | undefined, smoke: boolean, errors: string[]): SmokePolicy {
  if (value === undefined) return 'model';
  if (!smoke) errors.push('--smoke-policy is for --smoke.');
  const policy = smokePolicies.find((p) => p === value);
  if (policy === undefined) errors.push(`--smoke-policy must be ${smokePolicies.join(' or ')}, not ${JSON.stringify(value)}.`);
  return policy ?? 'model';
}

/** The rules a training launch adds to the config's own preflight. */
export async function trainPreflight(
  config: ExperimentConfig,
  mode: { smoke: boolean; ray: boolean; smokeSettings?: SmokeSettings; canary?: boolean },
): Promise<string[]> {
  const problems: string[] = [];
  const n = config.training.rollout_n;
  if (['grpo', 'rloo'].includes(config.training.adv_estimator) && n < 2) {
    problems.push(
      `training.rollout_n is ${n}: ${config.training.adv_estimator} compares episodes of the same task, so with one per task every advantage is zero. Set training.rollout_n to 2 or more.`,
    );
  }
  const model = mode.smokeSettings?.policy === 'model' ? mode.smokeSettings.languageModel : undefined;
  if (model !== undefined && !existsSync(model)) {
    problems.push(
      mode.canary === true
        ? `the canary trains ${model}, which is missing: run bash scripts/setup-language-model.sh.`
        : `the smoke's model policy starts from ${model}, which is missing: run bash scripts/setup-language-model.sh, or choose --smoke-policy scripted.`,
    );
  }
  if (!mode.smoke && !mode.ray && (await visibleGpus()) === 0) {
    problems.push(
      'no GPU is visible (nvidia-smi -L lists none): Verl rolls out with vLLM, which needs one, and would hang without a word. Run on a GPU machine, submit to a cluster with --ray ADDRESS, or check the installation with --smoke.',
    );
  }
  return problems;
}

async function tasksOf(
  files: readonly string[],
  p: { task: readonly string[]; limit: number | undefined; allowedMountRoots: readonly string[] },
  cwd: string,
  io: Io,
): Promise<PlannedTask[] | undefined> {
  if (files.length === 0) return [];
  const loaded = await loadRolloutTasks({
    files: [...files],
    taskIds: [...p.task],
    limit: p.limit,
    cwd,
    command: 'gp train',
    allowedMountRoots: p.allowedMountRoots,
  });
  if (!loaded.ok) {
    loaded.problems.forEach((m) => io.err(m));
    return undefined;
  }
  return loaded.tasks;
}

export async function trainCommand(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const config = parseConfigFlags(argv);
  const args = parseCommandArgs(usage, config.rest, trainOptions, io);
  if (!args.ok) return args.exit;
  const v = args.values;
  const errors = [...args.errors, ...config.errors];
  if (args.positionals.length > 1) errors.push('name one experiment config.');
  const configFile = v.config ?? args.positionals[0] ?? config.flags.configFile;
  const limit = intFlag('--limit', v.limit, errors);
  const canaryRun = v.canary === true;
  const steps = intFlag('--steps', v.steps, errors) ?? (canaryRun ? canaryDefaults.steps : 1);
  const seeds = intFlag('--seeds', v.seeds, errors) ?? canaryDefaults.seeds;
  const stallS = intFlag('--stall-timeout', v['stall-timeout'], errors) ?? 600;
  if (v.steps !== undefined && v.smoke !== true && !canaryRun)
    errors.push('--steps is for --smoke and --canary; a real run takes training.total_steps or total_epochs.');
  if (v.seeds !== undefined && !canaryRun) errors.push('--seeds is for --canary.');
  if (canaryRun && (v.smoke === true || v.ray !== undefined || v.tasks !== undefined || v['val-tasks'] !== undefined || v.task !== undefined))
    errors.push('--canary runs on this machine on its own task family: leave out --smoke, --ray, --tasks, --val-tasks and --task.');
  const policy = smokePolicyFlag(v['smoke-policy'], v.smoke === true, errors);
  if (errors.length > 0) return usageError(usage, io, errors);

  const loaded = await loadConfig({ file: configFile, flags: config.flags, cwd, disk: configFile !== undefined && v.smoke !== true && !canaryRun });
  if (loaded.kind === 'unreadable') {
    io.err(`${loaded.file}: ${loaded.message}.`);
    return 2;
  }
  const { resolution } = loaded;
  printConfigFindings(configFile ?? 'gp train', resolution, io);
  if (resolution.verdict === 'errors' || resolution.config === undefined) {
    io.err('gp train: the config has errors; nothing was started.');
    return 2;
  }
  const smoke = v.smoke === true ? smokeSettings(policy, steps) : undefined;
  // The sandbox capacity against the cluster's slots; a smoke's or the canary's episodes need no note locally.
  await printCapacityPreflight(
    { label: configFile ?? 'gp train', resolution, command: 'train', ray: v.ray, noteWhenUnknown: smoke === undefined && !canaryRun },
    io,
  );
  // A dry run starts nothing, so a model file that is not installed yet does not stop it.
  const checkModel = (smoke !== undefined || canaryRun) && v['dry-run'] !== true;
  const problems = await trainPreflight(resolution.config, {
    smoke: smoke !== undefined || canaryRun,
    ray: v.ray !== undefined,
    ...(checkModel ? { smokeSettings: smoke ?? smokeSettings('model', steps) } : {}),
    canary: canaryRun,
  });
  if (problems.length > 0) {
    problems.forEach((m) => io.err(`${configFile ?? 'gp train'}: error train/preflight: ${m}`));
    return 2;
  }
  const setOnCommandLine = new Set(resolution.applied.map((o) => o.path.join('.')));
  const runConfig = smoke
    ? smokeConfig(resolution.config, smoke.policy, setOnCommandLine)
    : canaryRun
      ? canaryConfig(resolution.config, setOnCommandLine)
      : resolution.config;
  let run = planRunFolder(runConfig, {
    command: 'train',
    now: new Date(),
    commandLine: ['gp', 'train', ...argv].join(' '),
    ignored: resolution.ignored,
  });
  if (v['run-dir'] !== undefined) run = moveRunFolder(run, resolve(cwd, v['run-dir']));
  const allowedMountRoots = run.config.sandbox.allowed_mount_roots;
  const selection = { task: v.task ?? [], limit, allowedMountRoots };
  // The canary writes its task family into the run folder: the held-out tasks are the validation set.
  const family = canaryRun ? await writeCanaryFamily(join(run.dir, 'canary')) : undefined;
  const canary = family === undefined ? undefined : canarySettings(steps, seeds, family.specFile);
  const trainFiles = family ? [family.trainFile] : (v.tasks ?? [run.config.paths.dataset_train]);
  const valFiles = family
    ? [family.heldOutFile]
    : (v['val-tasks'] ?? (v.tasks === undefined && run.config.paths.dataset_val !== null ? [run.config.paths.dataset_val] : []));
  const trainTasks = await tasksOf(trainFiles, selection, cwd, io);
  const valTasks = await tasksOf(valFiles, { task: [], limit, allowedMountRoots }, cwd, io);
  if (trainTasks === undefined || valTasks === undefined) return 2;
  if (trainTasks.length < run.config.training.train_batch_size) {
    io.err(
      `gp train: ${trainTasks.length} training task(s), fewer than training.train_batch_size (${run.config.training.train_batch_size}); add tasks or lower the batch size.`,
    );
    return 2;
  }
  const adapter = adapterDir();
  if (adapter === undefined) {
    io.err('gp train: the Python adapter (python/graph_planner_verl) is not part of this installation; run gp from a clone of the repository.');
    return 2;
  }
  const python = trainerPython(v.python);
  const cli = cliCommand();
  if (v.ray !== undefined && cli === undefined) {
    io.err('gp train --ray: dist/cli.js is not part of this installation, so no node can start a sandbox host; run gp from a built clone of the repository.');
    return 2;
  }
  if (v['dry-run'] === true) {
    io.out(
      [
        python,
        ...trainerArgv(run.config, { runName: run.name, runDir: run.dir, adapterDir: adapter, ...(smoke ? { smoke } : {}), ...(canary ? { canary } : {}) }),
      ].join(' \\\n  '),
    );
    return 0;
  }
  let deps;
  let prompt;
  try {
    deps = episodeDepsFromConfig(run.config, run.name, run.dir);
    // The agent loop sends what the service tells it: the experiment's prompt files, in the reply text format.
    prompt = await loadPlannerPrompt(run.config, cwd, { format: 'text' });
  } catch (error) {
    io.err(`gp train: ${errorMessage(error)}`);
    return 2;
  }
  // One owner per run folder (runs/runLock.ts): a second launch on it is refused, never interleaved.
  await mkdir(run.dir, { recursive: true });
  const taken = await RunLock.acquire(run.layout.lock, ['gp', 'train', ...argv].join(' '));
  if (!taken.ok) {
    io.err(`gp train: ${displayPath(run.dir, cwd)}: ${taken.message}`);
    return 2;
  }
  const lock = taken.lock;
  await writeResolvedConfig(run, configFile === undefined ? '(defaults)' : resolve(cwd, configFile));
  // How the run was launched, so the editor (or a person) can resume it or launch it again, as a rollout's.
  await writeLaunchRecord(run.layout.launch, { command: 'train', args: [...argv], cwd, agent: run.config.rollout.agent, written_at: isoTimestamp(new Date()) });
  io.out(`run dir: ${displayPath(run.dir, cwd)}`);
  const reaper = containerReaper(run.config, run.name);
  const controller = new AbortController();
  const interrupt = installInterrupt({
    onFirst: () => {
      io.err('Interrupted: stopping the trainer and closing every episode (Ctrl-C again to force).');
      controller.abort();
    },
    onForce: async () => undefined,
  });
  // A closed terminal (the editor's, when VS Code quits) hangs up: stop as for Ctrl-C, or the
  // trainer would go on without its environment.
  const onHangUp = (): void => controller.abort();
  process.once('SIGHUP', onHangUp);
  try {
    const result = await runTraining({
      config: run.config,
      runName: run.name,
      runDir: run.dir,
      layout: run.layout,
      trainTasks,
      valTasks,
      deps,
      prompt,
      python,
      adapterDir: adapter,
      ...(smoke ? { smoke } : {}),
      ...(canary ? { canary } : {}),
      ...(v.ray === undefined ? {} : { ray: v.ray }),
      stallMs: stallS * 1000,
      ...(v['service-host'] === undefined ? {} : { serviceHost: v['service-host'] }),
      signal: controller.signal,
      log: (line) => io.err(line),
      command: ['gp', 'train', ...argv].join(' '),
      ...(reaper === undefined ? {} : { reapContainers: () => reaper(true) }),
      ...(v.ray === undefined || cli === undefined ? {} : { sandboxHosts: { resolvedConfig: run.layout.resolvedConfig, cli } }),
    });
    io.out(`${result.state}: ${result.reason}`);
    io.out(`steps: ${result.steps}  episodes: ${result.episodes.total} (${result.episodes.resolved} resolved)  run dir: ${displayPath(run.dir, cwd)}`);
    if (canary !== undefined && result.state === 'finished') return canaryExit(run.dir, io);
    return result.state === 'finished' ? 0 : result.state === 'interrupted' ? 130 : 1;
  } finally {
    interrupt.dispose();
    process.removeListener('SIGHUP', onHangUp);
    await lock.release().catch(() => undefined);
  }
}

/**
 * The canary's exit code from its verdict (`<run>/canary/verdict.json`, written by the driver): 0
 * when it learned, 4 when it did not; the verdict line itself is in the driver's output.
 */
async function canaryExit(runDir: string, io: Io): Promise<number> {
  try {
    const verdict = JSON.parse(await readFile(join(runDir, 'canary', 'verdict.json'), 'utf8')) as { learned?: unknown; line?: unknown };
    if (typeof verdict.line === 'string') io.out(verdict.line);
    return verdict.learned === true ? 0 : 4;
  } catch (error) {
    io.err(`gp train --canary: the driver wrote no verdict (${errorMessage(error)}); its output is in ${join(runDir, 'run.log')}.`);
    return 1;
  }
}
