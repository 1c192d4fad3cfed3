/**
 * `gp runs list|show|stop|rm`: the run folders under the output roots, for machines without an
 * editor. Discovery and control live in `runs/` (the editor's Runs view uses the same functions);
 * this file parses arguments and prints. Exit codes: 0 when it worked, 1 when the run could not be
 * found, stopped or removed, 2 for a usage error.
 */
import { readdir } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { experimentConfigSchema } from '../config/index.js';
import {
  EpisodeFold,
  effectiveState,
  findRun,
  listRuns,
  readEvents,
  readMetrics,
  readReport,
  readTrajectory,
  removeRun,
  summariseMetrics,
  runLayout,
  stopRun,
  type RunListing,
} from '../runs/index.js';
import { buildEpisodeModel, type EpisodeModel } from '../episodes/index.js';
import { inspectEvalZip, inspectExport, inspectJson } from '../formats/index.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { episodeLines } from './episodeList.js';
import { parseCommandArgs, usageError, type CommandUsage } from './args.js';
import { formatAge, formatTable } from './containerCommands.js';
import type { Io } from './output.js';
import { modelLines } from './rolloutSummary.js';

const defaultRoot = experimentConfigSchema.parse({}).logging.output_dir;

export const runsListUsage = `gp runs list [--root DIR]... [--json]
      Run folders under each root (default ${defaultRoot}, the default logging.output_dir),
      newest first: state, episodes finished of total, resolved, age and command. A run
      whose process is gone shows as interrupted; a folder with a bad status.json says why.`;
export const runsShowUsage = `gp runs show RUN [--root DIR]... [--json] [--metrics]
      One run (a name under a root, or a path): its status, its report's totals, its episodes
      by task (each attempt under the name the editor shows) and its files.
      --metrics: a training run's latest Verl metrics (score, lengths, KL, timing) and its
      episodes' resolved rate and mean return, from metrics.jsonl.`;
export const runsStopUsage = `gp runs stop RUN [--root DIR]... [--wait S]
      Interrupt a running run as Ctrl-C in its terminal would (SIGINT to its process), then
      wait up to S seconds (default 30) for it to close its sandboxes and record its state.`;
export const runsRmUsage = `gp runs rm RUN [--root DIR]...
      Delete a run's folder; refused while the run is running (stop it first).`;
export const runsExportUsage = `gp runs export RUN --format inspect [--out FILE] [--root DIR]...
      Write the run's episodes as an Inspect AI evaluation log: one sample per episode (the task
      is the sample, its attempts are epochs), with the conversation, each action as a tool call
      and its observation as the result, the outcome as a score and our records in the sample's
      metadata. FILE ending in .json writes Inspect's JSON log; otherwise a .eval log
      (default: <run>/<run name>.eval).`;

const rootOption = { root: { type: 'string', multiple: true } } as const;

export const runsListOptions = { ...rootOption, json: { type: 'boolean' } } as const;
export const runsShowOptions = { ...rootOption, json: { type: 'boolean' }, metrics: { type: 'boolean' } } as const;
export const runsStopOptions = { ...rootOption, wait: { type: 'string' } } as const;
export const runsRmOptions = rootOption;
export const runsExportOptions = { ...rootOption, format: { type: 'string' }, out: { type: 'string' } } as const;

function rootsOf(values: { root?: string[] | undefined }): string[] {
  return values.root ?? [defaultRoot];
}

function progress(run: RunListing): string {
  const e = run.status?.episodes;
  return e === undefined ? '-' : `${e.finished}/${e.total}`;
}

function runRow(run: RunListing, now: number): string[] {
  const state = run.status === undefined ? `unreadable: ${run.problem ?? '?'}` : effectiveState(run);
  return [
    run.name,
    state,
    progress(run),
    String(run.status?.episodes.resolved ?? '-'),
    run.status === undefined ? '-' : formatAge(run.status.started_at, now),
    run.status?.command ?? '',
  ];
}

export async function runsList(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const command: CommandUsage = { name: 'runs list', usage: runsListUsage };
  const args = parseCommandArgs(command, argv, runsListOptions, io);
  if (!args.ok) return args.exit;
  if (args.positionals.length > 0) return usageError(command, io, [`unexpected argument ${args.positionals[0] ?? ''}; name roots with --root.`]);
  const runs: RunListing[] = [];
  for (const root of rootsOf(args.values)) runs.push(...(await listRuns(resolve(cwd, root))));
  if (args.values.json === true) {
    io.out(
      JSON.stringify(
        runs.map((r) => ({ ...r, state: effectiveState(r) })),
        null,
        2,
      ),
    );
    return 0;
  }
  if (runs.length === 0) {
    io.out(`No runs under ${rootsOf(args.values).join(', ')}.`);
    return 0;
  }
  const now = Date.now();
  for (const line of formatTable([['RUN', 'STATE', 'EPISODES', 'RESOLVED', 'AGE', 'COMMAND'], ...runs.map((r) => runRow(r, now))])) io.out(line);
  return 0;
}

type OneRun = { readonly exit: number } | { readonly run: RunListing; readonly values: Readonly<Record<string, unknown>> };

/** Parses `RUN [--root DIR]...` plus `extra` options and finds the run; prints why when it cannot. */
async function oneRun(
  command: CommandUsage,
  argv: readonly string[],
  extra: Readonly<Record<string, { type: 'string' | 'boolean' }>>,
  io: Io,
  cwd: string,
): Promise<OneRun> {
  const args = parseCommandArgs(command, argv, { ...rootOption, ...extra }, io);
  if (!args.ok) return { exit: args.exit };
  const ref = args.positionals[0];
  if (ref === undefined || args.positionals.length > 1) return { exit: usageError(command, io, ['name one run.']) };
  const values = args.values as Readonly<Record<string, unknown>>;
  const root = values['root'];
  const found = await findRun(ref, Array.isArray(root) ? root.map(String) : [defaultRoot], cwd);
  if (!found.ok) {
    io.err(`gp ${command.name}: ${found.reason}.`);
    return { exit: 1 };
  }
  return { run: found.run, values };
}

export async function runsShow(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const got = await oneRun({ name: 'runs show', usage: runsShowUsage }, argv, runsShowOptions, io, cwd);
  if (!('run' in got)) return got.exit;
  const { run } = got;
  const layout = runLayout(run.dir);
  if (got.values['metrics'] === true) return showMetrics(layout.metrics, got.values['json'] === true, io);
  const report = run.hasReport ? await readReport(layout.report) : undefined;
  const episodes = await runEpisodes(run);
  if (got.values['json'] === true) {
    io.out(JSON.stringify({ ...run, state: effectiveState(run), report, episodes }, null, 2));
    return 0;
  }
  const s = run.status;
  io.out(`run:      ${run.name} (${run.dir})`);
  io.out(
    `state:    ${s === undefined ? `unreadable: ${run.problem ?? '?'}` : effectiveState(run)}${run.stale ? ` (its status says running, but process ${s?.pid ?? '?'} is gone)` : ''}`,
  );
  if (s !== undefined) {
    io.out(`command:  ${s.command}`);
    io.out(`started:  ${s.started_at}${s.ended_at === undefined ? '' : `, ended ${s.ended_at}`}`);
    const infrastructure =
      s.episodes.infrastructure === undefined ? '' : `, ${s.episodes.infrastructure} failed by the infrastructure (not counted; --resume runs them again)`;
    io.out(`episodes: ${s.episodes.finished} of ${s.episodes.total} finished, ${s.episodes.resolved} resolved, ${s.episodes.errored} errored${infrastructure}`);
    if (s.exit_reason !== undefined) io.out(`reason:   ${s.exit_reason}`);
  }
  if (report !== undefined) io.out(`report:   ${report.resolved} of ${report.total} resolved (${layout.report})`);
  // The model figures beside the resolved count, so a rate a fallback padded is never read alone.
  const model = report?.model ?? s?.model;
  if (report !== undefined && model !== undefined) modelLines(report).forEach((l) => io.out(l));
  else if (model !== undefined && s !== undefined)
    io.out(`model:    ${model.model_steps}/${model.steps} steps from its own replies so far; resolved by the model alone: ${model.resolved_by_model_alone}`);
  episodeLines(episodes).forEach((l) => io.out(l));
  io.out(`config:   ${layout.resolvedConfig}`);
  io.out(`events:   ${layout.events}`);
  io.out(`trajectories: ${layout.trajectories}`);
  return 0;
}

/** The run's episodes from its events, as the Runs view folds them; a run whose process is gone has none running. */
async function runEpisodes(run: RunListing) {
  const fold = new EpisodeFold(run.dir);
  fold.apply((await readEvents(runLayout(run.dir).events)).records);
  if (run.stale) fold.interruptRunning();
  return fold.all();
}

export async function runsStop(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const command: CommandUsage = { name: 'runs stop', usage: runsStopUsage };
  const got = await oneRun(command, argv, runsStopOptions, io, cwd);
  if (!('run' in got)) return got.exit;
  const rawWait = got.values['wait'];
  const wait = rawWait === undefined ? 30 : Number(rawWait);
  if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0)
    return usageError(command, io, [`--wait needs a number of seconds, not '${String(rawWait)}'.`]);
  const result = await stopRun(got.run, wait * 1000);
  const name = basename(got.run.dir);
  switch (result.kind) {
    case 'stopped':
      io.out(`${name}: ${result.state}.`);
      return 0;
    case 'not-running':
      io.err(`gp runs stop: ${name} is not running (${result.state}).`);
      return 1;
    case 'elsewhere':
      io.err(`gp runs stop: ${name} runs on ${result.host}; stop it there.`);
      return 1;
    case 'still-running':
      io.err(
        `gp runs stop: ${name} got the interrupt but is still ending after ${result.waitedMs / 1000} s; it keeps closing its sandboxes (gp runs show ${name} tells when it is done).`,
      );
      return 1;
  }
}

export async function runsRm(argv: readonly string[], io: Io, cwd: string): Promise<number> {
  const got = await oneRun({ name: 'runs rm', usage: runsRmUsage }, argv, runsRmOptions, io, cwd);
  if (!('run' in got)) return got.exit;
  const removed = await removeRun(got.run);
  if (!removed.ok) {
    io.err(`gp runs rm: ${removed.reason}.`);
    return 1;
  }
  io.out(`removed ${got.run.dir}`);
  return 0;
}

async function showMetrics(path: string, json: boolean, io: Io): Promise<number> {
  const read = await readMetrics(path);
  const summary = summariseMetrics(read.records);
  read.problems.forEach((p) => io.err(`${path}: ${p}`));
  if (json) {
    io.out(JSON.stringify({ ...summary, latest: Object.fromEntries(summary.latest), problems: read.problems }, null, 2));
    return 0;
  }
  if (read.records.length === 0) {
    io.out(`no metrics yet (${path}): a training run writes them as Verl logs each step and as episodes end.`);
    return 0;
  }
  const last = summary.lastStep;
  io.out(`steps:    ${summary.steps}${last === undefined ? '' : ` (latest: step ${last.step} of attempt ${last.attempt}, ${last.ts})`}`);
  const rate = summary.resolvedRate === undefined ? '-' : `${(100 * summary.resolvedRate).toFixed(1)}%`;
  io.out(
    `episodes: ${summary.episodes}, ${summary.resolved} resolved (${rate}), mean return ${summary.meanTotalReward === undefined ? '-' : summary.meanTotalReward.toFixed(3)}${summary.noOutcome === 0 ? '' : `; ${summary.noOutcome} without an outcome (infrastructure failures, left out of the rate and of training)`}`,
  );
  const width = Math.max(0, ...summary.latest.map(([k]) => k.length));
  for (const [key, value] of summary.latest) io.out(`  ${key.padEnd(width)}  ${formatMetric(value)}`);
  return 0;
}

function formatMetric(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  return abs !== 0 && (abs < 1e-3 || abs >= 1e6) ? value.toExponential(3) : value.toFixed(4);
}

export async function runsExport(argv: readonly string[], io: Io, cwd: string, version: string): Promise<number> {
  const command: CommandUsage = { name: 'runs export', usage: runsExportUsage };
  const got = await oneRun(command, argv, runsExportOptions, io, cwd);
  if (!('run' in got)) return got.exit;
  const format = got.values['format'];
  if (format !== 'inspect')
    return usageError(command, io, [format === undefined ? 'give --format inspect.' : `--format ${String(format)} is not known; the one format is inspect.`]);
  const { run } = got;
  const folder = runLayout(run.dir).trajectories;
  const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  if (names.length === 0) {
    io.err(`gp runs export: ${run.name} has no episodes yet (nothing in ${folder}).`);
    return 1;
  }
  const models: EpisodeModel[] = [];
  for (const name of names) {
    const read = await readTrajectory(join(folder, name));
    if (read === undefined) io.err(`warning: ${join(folder, name)} could not be read and is left out.`);
    else models.push(buildEpisodeModel(read));
  }
  // Attempts of a task become its epochs in the order they started.
  models.sort(
    (a, b) => (a.start?.started_at ?? '').localeCompare(b.start?.started_at ?? '') || (a.start?.episode_id ?? '').localeCompare(b.start?.episode_id ?? ''),
  );
  const log = inspectExport(models, { runName: run.name, version });
  const outValue = got.values['out'];
  const out = typeof outValue === 'string' ? resolve(cwd, outValue) : join(run.dir, `${basename(run.dir)}.eval`);
  await writeFileAtomic(out, extname(out) === '.json' ? inspectJson(log) : inspectEvalZip(log));
  const scored = log.header.results?.scores[0];
  io.out(
    `wrote ${out}: ${log.samples.length} sample(s) of ${log.header.eval.dataset.samples ?? 0} task(s), ${scored?.scored_samples ?? 0} scored, accuracy ${(scored?.metrics['accuracy']?.value ?? 0).toFixed(3)}`,
  );
  return 0;
}
