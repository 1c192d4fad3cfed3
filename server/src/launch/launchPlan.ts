/**
 * The `gp` command line of a launch from the editor, and its preflight: a new rollout or
 * evaluation from the quick-pick flow, the rest of an existing run (resume), a run again from
 * its own `resolved_config.yaml` and recorded arguments (re-launch), or a verification of a
 * dataset (`gp dataset verify`, from the Tasks view). The command line is parsed
 * back with the rollout commands' own flag table and its config resolved through `loadConfig`,
 * the road every command takes, so the verdict here is the one the launched `gp` will reach.
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConfigFlags, type Resolution } from '../config/index.js';
import type { ForkLaunch, LaunchFinding, LaunchPlanResult, LaunchSpec, NewRunLaunch, TrainLaunch, VerifyLaunch } from '../protocol/launch.js';
import type { RunLaunchRecord } from '../protocol/runs.js';
import { launchValues } from './launchValues.js';
import { readLaunchRecord, readRun, runLayout, statusIsLive, withoutConfigFlags, withoutRunFolderFlags } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import { forkRolloutArgs, readForkParent } from './forkLaunch.js';
import { checksDisk, loadConfig } from './loadConfig.js';
import { rolloutFlagOverrides, rolloutOptions } from './rolloutFlags.js';
import { planRunFolder, unusedFolder } from './runFolder.js';

/** A planned launch: the protocol's result plus the command. */
export interface LaunchPlan extends LaunchPlanResult {
  readonly command: LaunchCommand;
}

export type LaunchCommand = 'rollout' | 'eval' | 'dataset verify' | 'train';

/** `p` relative to `cwd` when it is inside it, as a person types it; absolute otherwise. */
function shownPath(cwd: string, p: string): string {
  const rel = relative(cwd, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

/** The arguments of a new run, before the run folder is chosen. */
export function newRunArgs(run: NewRunLaunch): string[] {
  // Paths inside the working folder are written relative to it, as a person types them; the
  // launch record keeps the folder, so they mean the same thing on a resume.
  const path = (p: string) => shownPath(run.cwd, p);
  const args = run.taskFiles.map(path);
  if (run.config !== null) args.push('--config', path(run.config));
  if (run.agent !== null) args.push('--agent', run.agent);
  if (run.backend !== null) args.push('--backend', run.backend);
  if (run.parallel !== null) args.push('--parallel', String(run.parallel));
  if (run.attempts !== null && run.kind === 'rollout') args.push('--attempts', String(run.attempts));
  for (const task of run.tasks) args.push('--task', task);
  for (const set of run.sets) args.push('--set', set);
  return args;
}

/** The arguments of a verification, before the run folder is chosen: each value one argument, never shell text. */
export function verifyArgs(verify: VerifyLaunch): string[] {
  const args = [shownPath(verify.cwd, verify.dataset), '--repeat', String(verify.repeats)];
  if (verify.parallel !== null) args.push('--parallel', String(verify.parallel));
  if (verify.backend !== null) args.push('--backend', verify.backend);
  return args;
}

export async function planLaunch(spec: LaunchSpec, now: Date = new Date()): Promise<LaunchPlan> {
  if (spec.mode === 'new') return planArgs(spec.run.kind, newRunArgs(spec.run), spec.run.cwd, { now, fresh: false });
  if (spec.mode === 'verify') return planVerify(spec.verify, now);
  if (spec.mode === 'train') return planTrain(spec.train, now);
  if (spec.mode === 'fork') return planFork(spec.fork, now);
  const dir = resolve(spec.dir);
  const run = await readRun(dir);
  if (run === undefined) return refused('rollout', `${dir} is not a run folder (it has neither status.json nor resolved_config.yaml).`, dir);
  const read = await readLaunchRecord(runLayout(dir).launch);
  if (!read.ok) {
    // A verification keeps no launch record: it resumes from its own run folder, by its own flag.
    const verification = run.status?.command.startsWith('gp dataset verify ') === true;
    const command = run.status?.command ?? 'gp dataset verify';
    const how = verification
      ? `run ${command}${command.includes(' --run-dir ') ? '' : ` --run-dir ${dir}`} again in a terminal: tasks with a verdict are not run again`
      : spec.mode === 'resume'
        ? `run its command again in a terminal with --run-dir ${dir} --resume`
        : 'run its command again in a terminal';
    return refused('rollout', `${basename(dir)} cannot be ${spec.mode === 'resume' ? 'resumed' : 're-launched'} from the editor: ${read.reason}; ${how}.`, dir);
  }
  const { record } = read;
  if (spec.mode === 'resume') {
    if (run.status !== undefined && statusIsLive(run.status))
      return refused(record.command, `${basename(dir)} is still running (pid ${run.status.pid}); it cannot be resumed twice.`, dir);
    if (run.status?.state === 'finished')
      return refused(record.command, `${basename(dir)} finished; every episode has ended, so there is nothing to resume. Re-launch it to run it again.`, dir);
    if (record.command === 'train') return planTrainAgain(record, dir, true, now);
    return planArgs(record.command, withoutRunFolderFlags(record.args), record.cwd, { now, fresh: false, resumeDir: dir });
  }
  if (record.command === 'train') return planTrainAgain(record, dir, false, now);
  const config = runLayout(dir).resolvedConfig;
  if (!existsSync(config)) return refused(record.command, `${basename(dir)} has no resolved_config.yaml to launch again from.`, dir);
  return planArgs(record.command, [...withoutConfigFlags(withoutRunFolderFlags(record.args)), '--config', config], record.cwd, { now, fresh: true });
}

interface PlanOptions {
  readonly now: Date;
  /** Always a new folder, even when the config names its run (a re-launch never writes into the old one). */
  readonly fresh: boolean;
  /** Resume into this folder. */
  readonly resumeDir?: string;
  /** A new run into this folder, which the arguments already name with `--run-dir` (a fork plans its own). */
  readonly fixedDir?: string;
}

async function planArgs(command: 'rollout' | 'eval', args: string[], cwd: string, options: PlanOptions): Promise<LaunchPlan> {
  const config = parseConfigFlags(args);
  const errors = [...config.errors];
  let values;
  try {
    values = parseArgs({ args: [...config.rest], options: rolloutOptions, allowPositionals: true, strict: true }).values;
  } catch (error) {
    return refused(command, `the launch's arguments do not parse: ${errorMessage(error)}`, '');
  }
  const extra = rolloutFlagOverrides(values, errors);
  if (errors.length > 0) return refused(command, errors.join(' '), '');
  const file = values.config ?? config.flags.configFile;
  const loaded = await loadConfig({ file, flags: { ...config.flags, overrides: [...config.flags.overrides, ...extra] }, cwd, disk: checksDisk(file) });
  if (loaded.kind === 'unreadable') return refused(command, `${loaded.file}: ${loaded.message}.`, '');
  const { resolution } = loaded;
  const findings = launchFindings(resolution, loaded.path);
  let runDir = options.resumeDir ?? options.fixedDir ?? '';
  if (runDir === '' && resolution.config !== undefined) {
    runDir = planRunFolder(resolution.config, { command, now: options.now, commandLine: '', ignored: [] }).dir;
    if (options.fresh) runDir = unusedFolder(runDir);
  }
  const shownDir = relative(cwd, runDir);
  const dirArg =
    runDir === '' || options.fixedDir !== undefined
      ? []
      : ['--run-dir', shownDir !== '' && !shownDir.startsWith('..') && !isAbsolute(shownDir) ? shownDir : runDir];
  const full = [command, ...args, ...dirArg, ...(options.resumeDir === undefined ? [] : ['--resume'])];
  return { command, args: full, display: displayCommand(full), cwd, runDir, findings, refused: null, values: launchValues(resolution) };
}

/**
 * A fork's command line (launch/forkLaunch.ts builds it from the parent's trajectory and run
 * folder), preflighted as any rollout: the parent's config with the fork's flags merged, so a
 * model the person picked that the config cannot reach is a finding here, before anything starts.
 * The run folder is the one the arguments name, never planned again from the config, which would
 * name the parent's experiment's usual folder.
 */
async function planFork(fork: ForkLaunch, now: Date): Promise<LaunchPlan> {
  const trajectory = resolve(fork.cwd, fork.trajectory);
  const parent = await readForkParent(trajectory);
  if (!parent.ok) return refused('rollout', parent.message, '');
  const forked = await forkRolloutArgs(
    { trajectory, step: fork.step, count: fork.count, agent: fork.agent ?? undefined, sets: fork.sets, cwd: fork.cwd, now },
    parent.model,
  );
  if (!forked.ok) return refused('rollout', forked.message, '');
  return planArgs('rollout', forked.args, fork.cwd, { now, fresh: true, fixedDir: forked.runDir });
}

/**
 * A verification's command line: the dataset must exist (its gold patches are looked for beside
 * it by `gp dataset verify` itself), the run folder is planned from the defaults as the command
 * plans it, in a folder of its own.
 */
async function planVerify(verify: VerifyLaunch, now: Date): Promise<LaunchPlan> {
  const command = 'dataset verify';
  const dataset = resolve(verify.cwd, verify.dataset);
  if (!existsSync(dataset)) return refused(command, `${dataset} does not exist.`, '');
  const args = verifyArgs({ ...verify, dataset });
  const backend = verify.backend === null ? [] : [{ flag: `--backend ${verify.backend}`, path: ['sandbox', 'backend'], value: verify.backend }];
  const loaded = await loadConfig({ file: undefined, flags: { ...parseConfigFlags([]).flags, overrides: backend }, cwd: verify.cwd, disk: false });
  if (loaded.kind === 'unreadable') return refused(command, `${loaded.file}: ${loaded.message}.`, '');
  const { resolution } = loaded;
  const findings = launchFindings(resolution, undefined);
  if (resolution.config === undefined) return { command, args: [], display: '', cwd: verify.cwd, runDir: '', findings, refused: null, values: null };
  const runDir = unusedFolder(resolve(verify.cwd, planRunFolder(resolution.config, { command: 'verify', now, commandLine: '', ignored: [] }).dir));
  const full = ['dataset', 'verify', ...args, '--run-dir', shownPath(verify.cwd, runDir)];
  return { command, args: full, display: displayCommand(full), cwd: verify.cwd, runDir, findings, refused: null, values: null };
}

/** The arguments of a training run, before the run folder is chosen: each value one argument, never shell text. */
export function trainArgs(train: TrainLaunch): string[] {
  const args = [shownPath(train.cwd, train.config)];
  if (train.smoke !== null) args.push('--smoke', ...(train.smoke === 'scripted' ? ['--smoke-policy', 'scripted'] : []));
  if (train.steps !== null) args.push('--steps', String(train.steps));
  if (train.ray !== null) args.push('--ray', train.ray);
  if (train.tasks !== null) args.push('--tasks', shownPath(train.cwd, train.tasks));
  return args;
}

/**
 * A training run's command line: the config preflighted as `gp train` reads it (a smoke run does
 * not read the model paths from the disk), and the run folder planned as `gp train` plans it, in a
 * folder of its own passed with `--run-dir`, so the editor knows which run to follow. `gp train`'s
 * own checks (the trainer environment, the GPUs) stay its own: a refusal there is a launch that
 * exits before it reports, and its first error is shown like any other.
 */
async function planTrain(train: TrainLaunch, now: Date): Promise<LaunchPlan> {
  const command = 'train';
  const loaded = await loadConfig({ file: train.config, flags: parseConfigFlags([]).flags, cwd: train.cwd, disk: train.smoke === null });
  if (loaded.kind === 'unreadable') return refused(command, `${loaded.file}: ${loaded.message}.`, '');
  const { resolution } = loaded;
  const findings = launchFindings(resolution, loaded.path);
  if (resolution.config === undefined) return { command, args: [], display: '', cwd: train.cwd, runDir: '', findings, refused: null, values: null };
  const runDir = unusedFolder(resolve(train.cwd, planRunFolder(resolution.config, { command, now, commandLine: '', ignored: [] }).dir));
  const full = ['train', ...trainArgs(train), '--run-dir', shownPath(train.cwd, runDir)];
  return { command, args: full, display: displayCommand(full), cwd: train.cwd, runDir, findings, refused: null, values: null };
}

/**
 * A training run again from its launch record: resumed in its own folder (`gp train --run-dir` of
 * an earlier run is a new attempt of it) or re-launched into a new one, planned from its
 * `resolved_config.yaml` as the first was. Its flags are its own, as recorded; `gp train` checks them.
 */
async function planTrainAgain(record: RunLaunchRecord, dir: string, resume: boolean, now: Date): Promise<LaunchPlan> {
  let runDir = dir;
  if (!resume) {
    const loaded = await loadConfig({ file: runLayout(dir).resolvedConfig, flags: parseConfigFlags([]).flags, cwd: record.cwd, disk: false });
    const config = loaded.kind === 'unreadable' ? undefined : loaded.resolution.config;
    if (config === undefined) return refused('train', `${basename(dir)} has no readable resolved_config.yaml to plan a new run folder from.`, dir);
    runDir = unusedFolder(resolve(record.cwd, planRunFolder(config, { command: 'train', now, commandLine: '', ignored: [] }).dir));
  }
  const full = ['train', ...withoutRunFolderFlags(record.args), '--run-dir', shownPath(record.cwd, runDir)];
  return { command: 'train', args: full, display: displayCommand(full), cwd: record.cwd, runDir, findings: [], refused: null, values: null };
}

function launchFindings(resolution: Resolution, path: string | undefined): LaunchFinding[] {
  const text = resolution.source.text;
  return resolution.findings
    .filter((f) => f.severity === 'error' || f.severity === 'warning')
    .map((f) => {
      const located = f.flag === undefined && path !== undefined && text.length > 0;
      const pos = located ? resolution.source.lineCounter.linePos(f.range.start) : undefined;
      return {
        severity: f.severity === 'error' ? 'error' : 'warning',
        message: `${f.code}: ${f.message}`,
        file: f.flag === undefined ? (path ?? null) : null,
        line: pos === undefined ? null : pos.line - 1,
        character: pos === undefined ? null : pos.col - 1,
        flag: f.flag ?? null,
      };
    });
}

function refused(command: LaunchCommand, reason: string, runDir: string): LaunchPlan {
  return { command, args: [], display: '', cwd: '', runDir, findings: [], refused: reason, values: null };
}

/** The command line as a person would type it: `gp` and each argument, quoted when the shell needs it. */
export function displayCommand(args: readonly string[]): string {
  return ['gp', ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))].join(' ');
}
