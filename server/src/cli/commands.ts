/**
 * Every `gp` command in one table: its noun and verb, its usage text and its handler. `gp --help`,
 * `gp NOUN --help`, `gp NOUN VERB --help`, the unknown-command messages and the dispatch in
 * main.ts all read this table, so a command added here is listed, helped and run everywhere.
 */
import { configFlagHelp } from '../config/index.js';
import { parseCommandArgs, usageError } from './args.js';
import { configCheck, configCheckUsage, configResolve, configResolveUsage, parseCheckArgs } from './configCommands.js';
import { containersList, containersListUsage, containersReap, containersReapUsage } from './containerCommands.js';
import { datasetValidate, datasetValidateUsage } from './datasetCommands.js';
import { datasetPrepare, datasetPrepareUsage } from './datasetPrepareCommand.js';
import { datasetRegister, datasetRegisterUsage } from './datasetRegisterCommand.js';
import { datasetVerify, datasetVerifyUsage } from './datasetVerifyCommand.js';
import { envBuild, envBuildUsage } from './envCommands.js';
import { imagesBuild, imagesBuildUsage } from './imageBuildCommand.js';
import { imagesManifest, imagesManifestUsage, imagesPrepull, imagesPrepullUsage } from './imageCommands.js';
import { modelServe, modelServeUsage } from './modelCommands.js';
import { intFlag, type Io } from './output.js';
import type { ProgressSink } from './progress.js';
import { raySlots, raySlotsUsage } from './rayCommands.js';
import { rolloutCommand, rolloutUsageOf } from './rolloutCommands.js';
import { taskTest, taskTestUsage } from './taskCommands.js';
import { trajectoryExport, trajectoryExportUsage, trajectoryShow, trajectoryShowUsage } from './trajectoryCommands.js';
import { trajectoryReplay, trajectoryReplayUsage } from './replayCommand.js';
import { trainCommand, trainUsage } from './trainCommand.js';
import { sandboxHostCommand, sandboxHostUsage } from './sandboxHostCommand.js';
import { runsList, runsListUsage, runsRm, runsRmUsage, runsShow, runsShowUsage, runsStop, runsStopUsage } from './runsCommands.js';

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

export interface Command {
  readonly noun: string;
  /** Undefined for a command that is a noun alone (`gp rollout FILE...`). */
  readonly verb: string | undefined;
  /** Synopsis lines, then a description indented by six spaces; `gp NOUN VERB --help` prints it. */
  readonly usage: string;
  /** Whether the usage ends with the shared config flags (`--max-steps N`, `--set K=V`, …). */
  readonly configFlags?: boolean;
  /** Whether main.ts installs the Ctrl-C handling of interrupt.ts and passes its signal. */
  readonly interruptible?: boolean;
  /** `argv` holds the words after the noun and verb. */
  readonly run: (argv: readonly string[], ctx: CliContext) => Promise<number>;
}

/** The full name of a command: `config check`, `rollout`. */
export function commandName(c: Command): string {
  return c.verb === undefined ? c.noun : `${c.noun} ${c.verb}`;
}

async function runConfigCheck(argv: readonly string[], ctx: CliContext): Promise<number> {
  const parsed = parseCheckArgs(argv, ctx.io, ctx.cwd);
  return parsed === undefined ? 2 : configCheck(parsed.files, parsed.options, ctx.io);
}

async function runDatasetValidate(argv: readonly string[], ctx: CliContext): Promise<number> {
  const command = { name: 'dataset validate', usage: datasetValidateUsage };
  const args = parseCommandArgs(command, argv, { json: { type: 'boolean' }, 'max-problems': { type: 'string' } }, ctx.io);
  if (!args.ok) return args.exit;
  const maxProblems = intFlag('--max-problems', args.values['max-problems'], args.errors, 0);
  if (args.positionals.length === 0) args.errors.push('name at least one JSONL file.');
  if (args.errors.length > 0) return usageError(command, ctx.io, args.errors);
  return datasetValidate(args.positionals, { json: args.values.json === true, ...(maxProblems === undefined ? {} : { maxProblems }) }, ctx.io);
}

export const commands: readonly Command[] = [
  { noun: 'config', verb: 'check', usage: configCheckUsage, configFlags: true, run: runConfigCheck },
  { noun: 'config', verb: 'resolve', usage: configResolveUsage, configFlags: true, run: (argv, ctx) => configResolve(argv, ctx.io, ctx.cwd) },
  { noun: 'dataset', verb: 'validate', usage: datasetValidateUsage, run: runDatasetValidate },
  { noun: 'dataset', verb: 'prepare', usage: datasetPrepareUsage, interruptible: true, run: (argv, ctx) => datasetPrepare(argv, ctx.io, ctx.cwd, ctx.progress, ctx.signal) },
  { noun: 'dataset', verb: 'register', usage: datasetRegisterUsage, run: (argv, ctx) => datasetRegister(argv, ctx.io, ctx.cwd) },
  // gp dataset verify installs its own Ctrl-C handling: the first closes the open sandboxes.
  { noun: 'dataset', verb: 'verify', usage: datasetVerifyUsage, configFlags: true, run: (argv, ctx) => datasetVerify(argv, ctx.io, ctx.cwd) },
  { noun: 'task', verb: 'test', usage: taskTestUsage, configFlags: true, run: (argv, ctx) => taskTest(argv, ctx.io, ctx.cwd) },
  { noun: 'env', verb: 'build', usage: envBuildUsage, run: (argv, ctx) => envBuild(argv, ctx.io, ctx.cwd) },
  { noun: 'images', verb: 'build', usage: imagesBuildUsage, run: (argv, ctx) => imagesBuild(argv, ctx.io, ctx.cwd) },
  { noun: 'images', verb: 'manifest', usage: imagesManifestUsage, run: (argv, ctx) => imagesManifest(argv, ctx.io) },
  { noun: 'images', verb: 'prepull', usage: imagesPrepullUsage, run: (argv, ctx) => imagesPrepull(argv, ctx.io) },
  // The rollout commands install their own Ctrl-C handling (rolloutCommands.ts), for now.
  { noun: 'rollout', verb: undefined, usage: rolloutUsageOf('rollout').usage, configFlags: true, run: (argv, ctx) => rolloutCommand('rollout', argv, ctx.io, ctx.cwd) },
  { noun: 'eval', verb: undefined, usage: rolloutUsageOf('eval').usage, configFlags: true, run: (argv, ctx) => rolloutCommand('eval', argv, ctx.io, ctx.cwd) },
  // gp train installs its own Ctrl-C handling: the first stops the trainer and closes the episodes.
  { noun: 'train', verb: undefined, usage: trainUsage, configFlags: true, run: (argv, ctx) => trainCommand(argv, ctx.io, ctx.cwd) },
  // A sandbox host stops when its standard input closes or on SIGTERM/SIGINT, and cleans up first.
  { noun: 'sandbox', verb: 'host', usage: sandboxHostUsage, run: (argv, ctx) => sandboxHostCommand(argv, ctx.io) },
  { noun: 'ray', verb: 'slots', usage: raySlotsUsage, configFlags: true, run: (argv, ctx) => raySlots(argv, ctx.io, ctx.cwd) },
  { noun: 'model', verb: 'serve', usage: modelServeUsage, interruptible: true, run: (argv, ctx) => modelServe(argv, ctx.io, ctx.signal) },
  { noun: 'containers', verb: 'list', usage: containersListUsage, run: (argv, ctx) => containersList(argv, ctx.io) },
  { noun: 'containers', verb: 'reap', usage: containersReapUsage, run: (argv, ctx) => containersReap(argv, ctx.io) },
  { noun: 'runs', verb: 'list', usage: runsListUsage, run: (argv, ctx) => runsList(argv, ctx.io, ctx.cwd) },
  { noun: 'runs', verb: 'show', usage: runsShowUsage, run: (argv, ctx) => runsShow(argv, ctx.io, ctx.cwd) },
  { noun: 'runs', verb: 'stop', usage: runsStopUsage, run: (argv, ctx) => runsStop(argv, ctx.io, ctx.cwd) },
  { noun: 'runs', verb: 'rm', usage: runsRmUsage, run: (argv, ctx) => runsRm(argv, ctx.io, ctx.cwd) },
  { noun: 'trajectory', verb: 'show', usage: trajectoryShowUsage, run: (argv, ctx) => trajectoryShow(argv, ctx.io, ctx.cwd) },
  { noun: 'trajectory', verb: 'export', usage: trajectoryExportUsage, run: (argv, ctx) => trajectoryExport(argv, ctx.io, ctx.cwd, gpVersion) },
  { noun: 'trajectory', verb: 'replay', usage: trajectoryReplayUsage, run: (argv, ctx) => trajectoryReplay(argv, ctx.io, ctx.cwd) },
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

/** `gp NOUN VERB --help`: the command's usage, and the config flags when it takes them. */
export function commandHelp(c: Command): string {
  return c.configFlags === true ? `${c.usage}\n\n${configFlagsBlock}` : c.usage;
}

/** `gp NOUN --help`: the usage of each of the noun's commands. */
export function nounHelp(noun: string): string {
  const list = commandsOf(noun);
  const flags = list.some((c) => c.configFlags === true) ? `\n\n${configFlagsBlock}` : '';
  return `Commands of gp ${noun}:\n${list.map((c) => indented(c.usage)).join('\n')}${flags}`;
}

/** `gp --help`: every command, then the config flags. */
export function globalHelp(version: string): string {
  return `gp ${version}: Graph Planner on the command line

Usage (gp NOUN VERB --help prints one command's usage):
${commands.map((c) => indented(c.usage)).join('\n')}

${configFlagsBlock}
`;
}
