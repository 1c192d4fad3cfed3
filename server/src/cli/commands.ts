/**
 * Every `gp` command in one table: its noun and verb, its usage text and its handler. `gp --help`,
 * `gp NOUN --help`, `gp NOUN VERB --help`, the unknown-command messages and the dispatch in
 * main.ts all read this table, so a command added here is listed, helped and run everywhere.
 */
import { configFlagHelp } from '../config/index.js';
import { parseCommandArgs, usageError, type CommandOptions } from './args.js';
import {
  configCheck,
  configCheckOptions,
  configCheckUsage,
  configResolve,
  configResolveOptions,
  configResolveUsage,
  parseCheckArgs,
} from './configCommands.js';
import { containersList, containersListOptions, containersListUsage, containersReap, containersReapOptions, containersReapUsage } from './containerCommands.js';
import { datasetValidate, datasetValidateOptions, datasetValidateUsage } from './datasetCommands.js';
import { datasetPrepare, datasetPrepareOptions, datasetPrepareUsage } from './datasetPrepareCommand.js';
import { datasetRegister, datasetRegisterOptions, datasetRegisterUsage } from './datasetRegisterCommand.js';
import { datasetVerify, datasetVerifyOptions, datasetVerifyUsage } from './datasetVerifyCommand.js';
import { envBuild, envBuildOptions, envBuildUsage } from './envCommands.js';
import { imagesBuild, imagesBuildFormsOptions, imagesBuildUsage } from './imageBuildCommand.js';
import { imagesManifest, imagesManifestOptions, imagesManifestUsage, imagesPrepull, imagesPrepullOptions, imagesPrepullUsage } from './imageCommands.js';
import { modelServe, modelServeOptions, modelServeUsage } from './modelCommands.js';
import { defaultMaxProblems, exitStatus, intFlag, type ExitStatus, type Io } from './output.js';
import type { ProgressSink } from './progress.js';
import { raySlots, raySlotsOptions, raySlotsUsage } from './rayCommands.js';
import { rolloutCommand, rolloutUsageOf } from './rolloutCommands.js';
import { rolloutOptions } from '../launch/index.js';
import { taskTest, taskTestOptions, taskTestUsage } from './taskCommands.js';
import {
  trajectoryExport,
  trajectoryExportOptions,
  trajectoryExportUsage,
  trajectoryShow,
  trajectoryShowOptions,
  trajectoryShowUsage,
} from './trajectoryCommands.js';
import { trajectoryReplay, trajectoryReplayOptions, trajectoryReplayUsage } from './replayCommand.js';
import { trajectoryFork, trajectoryForkOptions, trajectoryForkUsage } from './forkCommand.js';
import { trainCommand, trainOptions, trainUsage } from './trainCommand.js';
import { sandboxHostCommand, sandboxHostOptions, sandboxHostUsage } from './sandboxHostCommand.js';
import {
  runsList,
  runsListOptions,
  runsListUsage,
  runsRm,
  runsRmOptions,
  runsRmUsage,
  runsExport,
  runsExportOptions,
  runsExportUsage,
  runsShow,
  runsShowOptions,
  runsShowUsage,
  runsStop,
  runsStopOptions,
  runsStopUsage,
} from './runsCommands.js';

/** The version `gp --version` prints and exports record. */
export const gpVersion = '0.1.0';

/** What a handler gets besides its arguments. */
export interface CliContext {
  readonly io: Io;
  readonly cwd: string;
  /** Aborted by the first Ctrl-C, for commands marked `interruptible`, when `gp` runs as a program. */
  readonly signal?: AbortSignal;
  /** A terminal's progress line, when stderr is one. */
  readonly progress?: ProgressSink;
}

/**
 * The groups `gp --help` lists the commands in, in this order: a title a person scans for, each
 * command naming its group once in the table below.
 */
export const commandGroups = {
  config: 'Configs',
  run: 'Running',
  train: 'Training',
  datasets: 'Datasets',
  images: 'Images',
  runs: 'Runs',
  episodes: 'Episodes',
  server: 'Infrastructure',
} as const;
export type CommandGroup = keyof typeof commandGroups;

export interface Command {
  readonly noun: string;
  /** Undefined for a command that is a noun alone (`gp rollout FILE...`). */
  readonly verb: string | undefined;
  /** Where `gp --help` lists it. */
  readonly group: CommandGroup;
  /** Synopsis lines, then a description indented by six spaces; `gp NOUN VERB --help` prints it. */
  readonly usage: string;
  /** Whether the usage ends with the shared config flags (`--max-steps N`, `--set K=V`, …). */
  readonly configFlags?: boolean;
  /**
   * The options the command's own parser takes (the same object it passes to `util.parseArgs`),
   * config flags apart: the CLI reference lists them and a test holds the synopsis to them.
   */
  readonly options: CommandOptions;
  /** What an option stands for when it is not given, in a few words, by option name. */
  readonly defaults?: Readonly<Record<string, string>>;
  /** Every status the command ends with and what it means here; help and the reference print them. */
  readonly exits: readonly ExitStatus[];
  /** Whether main.ts installs the Ctrl-C handling of interrupt.ts and passes its signal. */
  readonly interruptible?: boolean;
  /** `argv` holds the words after the noun and verb. */
  readonly run: (argv: readonly string[], invocation: CliContext) => Promise<number>;
}

/** The full name of a command: `config check`, `rollout`. */
export function commandName(c: Command): string {
  return c.verb === undefined ? c.noun : `${c.noun} ${c.verb}`;
}

async function runConfigCheck(argv: readonly string[], invocation: CliContext): Promise<number> {
  const parsed = parseCheckArgs(argv, invocation.io, invocation.cwd);
  return parsed === undefined ? 2 : configCheck(parsed.files, parsed.options, invocation.io);
}

async function runDatasetValidate(argv: readonly string[], invocation: CliContext): Promise<number> {
  const command = { name: 'dataset validate', usage: datasetValidateUsage };
  const args = parseCommandArgs(command, argv, datasetValidateOptions, invocation.io);
  if (!args.ok) return args.exit;
  const maxProblems = intFlag('--max-problems', args.values['max-problems'], args.errors, 0);
  if (args.positionals.length === 0) args.errors.push('name at least one JSONL file.');
  if (args.errors.length > 0) return usageError(command, invocation.io, args.errors);
  return datasetValidate(args.positionals, { json: args.values.json === true, ...(maxProblems === undefined ? {} : { maxProblems }) }, invocation.io);
}

/** The rollout commands share one parser and each refuses the other's own flags (rolloutCommands.ts), so each lists only its own. */
function without(options: CommandOptions, names: readonly string[]): CommandOptions {
  return Object.fromEntries(Object.entries(options).filter(([name]) => !names.includes(name)));
}

/** The rollout commands' statuses: they differ only in what makes the run a failure (1). */
function rolloutExits(failure: ExitStatus): ExitStatus[] {
  return [
    { code: 0, meaning: 'the run ran, whatever it resolved' },
    failure,
    { code: 2, meaning: 'a usage, config or task file error, or the run folder is in use' },
    { code: 75, meaning: 'the infrastructure failed episodes (daemon or sandbox lost, disk full, out of memory, model server gone); --resume runs them again' },
    exitStatus.interrupted,
  ];
}

const ok = (meaning: string): ExitStatus => ({ code: 0, meaning });
const failed = (meaning: string): ExitStatus => ({ code: 1, meaning });
const listingExits = [ok('listed'), failed('Docker could not be asked'), exitStatus.usage];

export const commands: readonly Command[] = [
  {
    noun: 'config',
    verb: 'check',
    group: 'config',
    usage: configCheckUsage,
    configFlags: true,
    options: configCheckOptions,
    defaults: { 'max-problems': String(defaultMaxProblems), for: 'train' },
    exits: [
      ok('no finding is an error (warnings are printed)'),
      failed('some finding is an error'),
      { code: 2, meaning: 'a file cannot be read, or a usage error' },
    ],
    run: runConfigCheck,
  },
  {
    noun: 'config',
    verb: 'resolve',
    group: 'config',
    usage: configResolveUsage,
    configFlags: true,
    options: configResolveOptions,
    exits: [
      ok('resolved and written (or printed)'),
      failed('the config has errors: nothing was written'),
      { code: 2, meaning: 'the file cannot be read, or a usage error' },
    ],
    run: (argv, invocation) => configResolve(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'dataset',
    verb: 'validate',
    group: 'datasets',
    usage: datasetValidateUsage,
    options: datasetValidateOptions,
    defaults: { 'max-problems': String(defaultMaxProblems) },
    exits: [ok('no line has an error'), failed('some line has an error'), { code: 2, meaning: 'a file cannot be read, or a usage error' }],
    run: runDatasetValidate,
  },
  {
    noun: 'dataset',
    verb: 'prepare',
    group: 'datasets',
    usage: datasetPrepareUsage,
    interruptible: true,
    options: datasetPrepareOptions,
    defaults: {
      dataset: 'R2E-Gym/R2E-Gym-Lite (r2e-gym), princeton-nlp/SWE-bench_Verified (swebench); harbor reads DIR',
      split: 'train (r2e-gym), test (swebench, harbor)',
      out: 'datasets/r2e_gym, datasets/swebench or datasets/harbor',
      'val-fraction': '0.1 (r2e-gym); swebench makes no validation split',
      'cache-dir': '$GP_CACHE_DIR, else ~/.cache/graph-planner/hf',
    },
    exits: [ok('tasks were written'), failed('no row became a task, or the download or the input failed: nothing was written'), exitStatus.usage],
    run: (argv, invocation) => datasetPrepare(argv, invocation.io, invocation.cwd, invocation.progress, invocation.signal),
  },
  {
    noun: 'dataset',
    verb: 'register',
    group: 'datasets',
    usage: datasetRegisterUsage,
    options: datasetRegisterOptions,
    defaults: { root: '$RLLM_HOME/datasets, else ~/.rllm/datasets' },
    exits: [ok('registered, every row read back'), failed('the task file or the registry has problems: nothing was written'), exitStatus.usage],
    run: (argv, invocation) => datasetRegister(argv, invocation.io, invocation.cwd),
  },
  // gp dataset verify installs its own Ctrl-C handling: the first closes the open sandboxes.
  {
    noun: 'dataset',
    verb: 'verify',
    group: 'datasets',
    usage: datasetVerifyUsage,
    configFlags: true,
    options: datasetVerifyOptions,
    defaults: {
      repeat: '1',
      parallel: 'rollout.parallel',
      gold: 'gold_predictions_<name>.jsonl beside FILE',
      backend: 'sandbox.backend',
      timeout: 'sandbox.test_timeout',
    },
    exits: [
      ok('every task certified (flaky ones included)'),
      failed('some task did not certify'),
      exitStatus.usageOrConfig,
      { code: 75, meaning: 'the machine failed (Docker, the disk): the verification can be resumed' },
      exitStatus.interrupted,
    ],
    run: (argv, invocation) => datasetVerify(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'task',
    verb: 'test',
    group: 'datasets',
    usage: taskTestUsage,
    configFlags: true,
    options: taskTestOptions,
    defaults: { backend: 'sandbox.backend', timeout: 'sandbox.test_timeout', 'run-dir': '<output_dir>/<run name>' },
    exits: [ok('every task passes'), failed('some task fails, a row cannot be read, or no task can run'), exitStatus.usageOrConfig, exitStatus.interrupted],
    run: (argv, invocation) => taskTest(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'env',
    verb: 'build',
    group: 'images',
    usage: envBuildUsage,
    options: envBuildOptions,
    exits: [ok('every environment (and image) was built or reused'), failed('some build failed'), exitStatus.usage],
    run: (argv, invocation) => envBuild(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'images',
    verb: 'build',
    group: 'images',
    usage: imagesBuildUsage,
    options: imagesBuildFormsOptions,
    defaults: { mirror: "the machine's Debian mirror" },
    exits: [ok('every image was built or is current'), failed('some image failed to build'), exitStatus.usage],
    run: (argv, invocation) => imagesBuild(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'images',
    verb: 'manifest',
    group: 'images',
    usage: imagesManifestUsage,
    options: imagesManifestOptions,
    defaults: { out: 'docker_images.txt beside the first FILE' },
    exits: [
      ok('the manifest was written'),
      failed('written, but some line of a task file is malformed'),
      { code: 2, meaning: 'a file cannot be read or the manifest cannot be written, or a usage error' },
    ],
    run: (argv, invocation) => imagesManifest(argv, invocation.io),
  },
  {
    noun: 'images',
    verb: 'prepull',
    group: 'images',
    usage: imagesPrepullUsage,
    options: imagesPrepullOptions,
    defaults: { 'max-workers': '4', retries: '2', delay: '5', timeout: '300' },
    exits: [ok('every image is present (or build-only)'), failed('some image failed to pull'), exitStatus.usage, exitStatus.interrupted],
    run: (argv, invocation) => imagesPrepull(argv, invocation.io),
  },
  // The rollout commands install their own Ctrl-C handling (rolloutCommands.ts), for now.
  {
    noun: 'rollout',
    verb: undefined,
    group: 'run',
    usage: rolloutUsageOf('rollout').usage,
    configFlags: true,
    options: without(rolloutOptions, ['ray', 'service-host']),
    defaults: { agent: 'rollout.agent', parallel: 'rollout.parallel', attempts: 'rollout.attempts', backend: 'sandbox.backend' },
    exits: rolloutExits(failed('every episode failed to run')),
    run: (argv, invocation) => rolloutCommand('rollout', argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'eval',
    verb: undefined,
    group: 'run',
    usage: rolloutUsageOf('eval').usage,
    configFlags: true,
    options: without(rolloutOptions, ['attempts', 'fork-of', 'fork-step']),
    defaults: { agent: 'rollout.agent', parallel: 'rollout.parallel', backend: 'sandbox.backend', 'service-host': '127.0.0.1' },
    exits: rolloutExits(failed('a task could not run (its sandbox did not open), so a rate over fewer tasks never passes for the evaluation’s')),
    run: (argv, invocation) => rolloutCommand('eval', argv, invocation.io, invocation.cwd),
  },
  // gp train installs its own Ctrl-C handling: the first stops the trainer and closes the episodes.
  {
    noun: 'train',
    verb: undefined,
    group: 'train',
    usage: trainUsage,
    configFlags: true,
    options: trainOptions,
    defaults: {
      tasks: 'paths.dataset_train',
      'val-tasks': 'paths.dataset_val (none when --tasks is given)',
      steps: '1 (--smoke), 20 (--canary)',
      seeds: '2',
      'smoke-policy': 'model',
      'stall-timeout': '600',
      'service-host': '127.0.0.1',
      python: '$GP_TRAINER_PYTHON, else the environment python/setup.sh built, else python3',
    },
    exits: [
      ok('training finished; with --canary, it learned'),
      failed('training failed or stalled'),
      exitStatus.usageOrConfig,
      { code: 4, meaning: '--canary finished and did not learn' },
      exitStatus.interrupted,
    ],
    run: (argv, invocation) => trainCommand(argv, invocation.io, invocation.cwd),
  },
  // A sandbox host stops when its standard input closes or on SIGTERM/SIGINT, and cleans up first.
  {
    noun: 'sandbox',
    verb: 'host',
    group: 'server',
    usage: sandboxHostUsage,
    options: sandboxHostOptions,
    defaults: { listen: '127.0.0.1' },
    exits: [ok('stopped cleanly'), failed('the host could not start'), exitStatus.usage],
    run: (argv, invocation) => sandboxHostCommand(argv, invocation.io),
  },
  {
    noun: 'ray',
    verb: 'slots',
    group: 'server',
    usage: raySlotsUsage,
    configFlags: true,
    options: raySlotsOptions,
    defaults: { slots: "counted from this machine's CPUs and memory" },
    exits: [ok('printed'), exitStatus.usageOrConfig],
    run: (argv, invocation) => raySlots(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'model',
    verb: 'serve',
    group: 'server',
    usage: modelServeUsage,
    interruptible: true,
    options: modelServeOptions,
    defaults: { port: 'a free port', ctx: '8192', threads: 'every core', model: 'SmolLM2-135M-Instruct (Q4_1)', 'api-key-env': 'a fresh token' },
    exits: [ok('stopped by Ctrl-C'), failed('the server ended by itself'), { code: 2, meaning: 'a usage error, or the model or the server is not installed' }],
    run: (argv, invocation) => modelServe(argv, invocation.io, invocation.signal),
  },
  {
    noun: 'containers',
    verb: 'list',
    group: 'server',
    usage: containersListUsage,
    options: containersListOptions,
    exits: listingExits,
    run: (argv, invocation) => containersList(argv, invocation.io),
  },
  {
    noun: 'containers',
    verb: 'reap',
    group: 'server',
    usage: containersReapUsage,
    options: containersReapOptions,
    exits: [
      ok('every orphan was removed (or listed, with --dry-run)'),
      failed('Docker could not be asked, or some container could not be removed'),
      exitStatus.usage,
    ],
    run: (argv, invocation) => containersReap(argv, invocation.io),
  },
  {
    noun: 'runs',
    verb: 'list',
    group: 'runs',
    usage: runsListUsage,
    options: runsListOptions,
    defaults: { root: 'outputs' },
    exits: [ok('listed'), exitStatus.usage],
    run: (argv, invocation) => runsList(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'runs',
    verb: 'show',
    group: 'runs',
    usage: runsShowUsage,
    options: runsShowOptions,
    defaults: { root: 'outputs' },
    exits: [ok('shown'), failed('no such run'), exitStatus.usage],
    run: (argv, invocation) => runsShow(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'runs',
    verb: 'stop',
    group: 'runs',
    usage: runsStopUsage,
    options: runsStopOptions,
    defaults: { root: 'outputs', wait: '30' },
    exits: [
      ok('the run stopped'),
      failed('no such run, it is not running, it runs on another machine, or it is still ending after the wait'),
      exitStatus.usage,
    ],
    run: (argv, invocation) => runsStop(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'runs',
    verb: 'rm',
    group: 'runs',
    usage: runsRmUsage,
    options: runsRmOptions,
    defaults: { root: 'outputs' },
    exits: [ok('removed'), failed('no such run, or it is running'), exitStatus.usage],
    run: (argv, invocation) => runsRm(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'runs',
    verb: 'export',
    group: 'runs',
    usage: runsExportUsage,
    options: runsExportOptions,
    defaults: { root: 'outputs', out: '<run>/<run name>.eval' },
    exits: [ok('exported'), failed('no such run, or it has no episodes'), exitStatus.usage],
    run: (argv, invocation) => runsExport(argv, invocation.io, invocation.cwd, gpVersion),
  },
  {
    noun: 'trajectory',
    verb: 'show',
    group: 'episodes',
    usage: trajectoryShowUsage,
    options: trajectoryShowOptions,
    defaults: { step: 'every step, in short' },
    exits: [ok('shown'), failed('the file cannot be read as a trajectory, or it has no such step'), exitStatus.usage],
    run: (argv, invocation) => trajectoryShow(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'trajectory',
    verb: 'export',
    group: 'episodes',
    usage: trajectoryExportUsage,
    options: trajectoryExportOptions,
    defaults: { out: 'standard output' },
    exits: [ok('exported'), failed('the file cannot be read as a trajectory'), exitStatus.usage],
    run: (argv, invocation) => trajectoryExport(argv, invocation.io, invocation.cwd, gpVersion),
  },
  {
    noun: 'trajectory',
    verb: 'replay',
    group: 'episodes',
    usage: trajectoryReplayUsage,
    options: trajectoryReplayOptions,
    exits: [ok('the replay reproduced the recording'), failed('a step diverged'), exitStatus.usage, { code: 3, meaning: 'the episode could not be replayed' }],
    run: (argv, invocation) => trajectoryReplay(argv, invocation.io, invocation.cwd),
  },
  {
    noun: 'trajectory',
    verb: 'fork',
    group: 'episodes',
    usage: trajectoryForkUsage,
    options: trajectoryForkOptions,
    defaults: { count: '1', agent: "the parent run's", config: "the parent run's resolved_config.yaml", 'run-dir': '<parent run>-fork-<stamp>' },
    exits: rolloutExits(failed("every episode failed to run, or a fork's replay of its parent diverged")),
    run: (argv, invocation) => trajectoryFork(argv, invocation.io, invocation.cwd),
  },
];

export const nouns: readonly string[] = [...new Set(commands.map((c) => c.noun))];

export function commandsOf(noun: string): Command[] {
  return commands.filter((c) => c.noun === noun);
}

const configFlagsBlock = `Config flags:\n  ${configFlagHelp.join('\n  ')}`;

function indented(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** The exit statuses as help prints them: one line each, the code in a column. */
export function exitLines(exits: readonly ExitStatus[]): string[] {
  return exits.map((e) => `${String(e.code).padEnd(4)} ${e.meaning}`);
}

/** `gp NOUN VERB --help`: the command's usage, the config flags when it takes them, and its exit statuses. */
export function commandHelp(c: Command): string {
  const flags = c.configFlags === true ? `\n\n${configFlagsBlock}` : '';
  return `${c.usage}${flags}\n\nExit status:\n  ${exitLines(c.exits).join('\n  ')}`;
}

/** `gp NOUN --help`: the usage of each of the noun's commands. */
export function nounHelp(noun: string): string {
  const list = commandsOf(noun);
  const flags = list.some((c) => c.configFlags === true) ? `\n\n${configFlagsBlock}` : '';
  return `Commands of gp ${noun}:\n${list.map((c) => indented(c.usage)).join('\n')}${flags}`;
}

/** One group's commands on one line, verbs of a noun together: `runs list|show|stop|rm, trajectory show|export`. */
export function groupLine(group: CommandGroup): string {
  const verbsByNoun = new Map<string, string[]>();
  for (const c of commands.filter((x) => x.group === group)) {
    const verbs = verbsByNoun.get(c.noun) ?? [];
    if (c.verb !== undefined) verbs.push(c.verb);
    verbsByNoun.set(c.noun, verbs);
  }
  return [...verbsByNoun].map(([noun, verbs]) => (verbs.length === 0 ? noun : `${noun} ${verbs.join('|')}`)).join(', ');
}

/** What `gp --help` shows as examples: one per thing a newcomer does first, each runnable in a clone. */
const helpExamples = [
  ['gp config check configs/experiments/sample.yaml', 'check a config: file:line:col findings'],
  ['gp rollout datasets/sample/tasks.jsonl --config configs/experiments/sample.yaml', "run the sample tasks' episodes"],
  ['gp runs show RUN', "a run's state, totals and files"],
  ['gp trajectory show outputs/RUN/trajectories/EPISODE.jsonl --step 3', 'one step of an episode'],
] as const;

/**
 * `gp --help` (and bare `gp`): what gp is, the commands by group on one line each, a few examples
 * and where each command's own options are. Each command's full usage stays with `gp COMMAND --help`
 * and the CLI reference, so this page fits a terminal without scrolling.
 */
export function globalHelp(version: string): string {
  const titleWidth = Math.max(...Object.values(commandGroups).map((t) => t.length)) + 2;
  const groups = (Object.keys(commandGroups) as CommandGroup[]).map((g) => `  ${commandGroups[g].padEnd(titleWidth)}${groupLine(g)}`);
  const examples = helpExamples.flatMap(([command, what]) => [`  ${command}`, `      ${what}`]);
  return `gp ${version}: Graph Planner on the command line. It checks experiment configs
and task datasets, runs repair episodes in sandboxes (rollouts, evaluations),
trains the planner with Verl, and shows what each run recorded.

Usage: gp COMMAND [ARGS...]

Commands:
${groups.join('\n')}

Examples:
${examples.join('\n')}

gp help COMMAND or gp COMMAND --help prints a command's options and exit
statuses (gp help dataset prepare); gp --version prints the version.
Every command, flag and exit status: docs/reference/cli.md.
`;
}
