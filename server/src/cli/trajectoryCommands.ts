/**
 * `gp trajectory show FILE [--step N] [--json]` and `gp trajectory export FILE --format atif
 * [--out FILE]`: an episode read in a terminal, or written in the Agent Trajectory Interchange
 * Format for other tools. Both read the episode through `episodes/episodeModel.ts`, which the
 * trajectory viewer shares. Exit codes: 0 when it worked, 1 when the file cannot be read or holds
 * no episode, 2 for a usage error.
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { buildEpisodeModel, type EpisodeModel, type StepView } from '../episodes/index.js';
import {
  looksLikeOurJsonl,
  looksLikeZip,
  openDocument,
  readInspectEval,
  toAtif,
  TrajectoryFormatError,
  type ForeignEpisode,
  type OpenedEpisode,
} from '../formats/index.js';
import { parseTrajectory } from '../runs/index.js';
import { episodeAttempt, episodeName } from '../protocol/episodeName.js';
import { visibleText } from '../protocol/terminalText.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError, type CommandUsage } from './args.js';
import { intFlag, type Io } from './output.js';
import { foreignHeader, foreignStepBlock, foreignSummaryLine, formatOf } from './foreignShow.js';

export const trajectoryShowUsage = `gp trajectory show FILE [--step N] [--sample KEY] [--json]
      An episode from its trajectory (trajectories/<episode>.jsonl): the task, agent and
      outcome, then one block per step (action, reward and return, time, what went wrong,
      and the observation the agent saw next), ending with a summary line. --step N shows
      that step whole. A trajectory without its end line is shown as cut short. Other tools'
      trajectories are shown the same way, read-only: ATIF (v1.0 to v1.8), SWE-agent .traj
      and mini-swe-agent .traj.json, and Inspect AI logs (.eval or .json), told apart by their
      content, with what their format does not record said and where the file breaks its
      format's rules on stderr. An Inspect log holds many samples: the first is shown, the
      others are listed, and --sample KEY (<id>_epoch_<n>) shows another.`;
export const trajectoryExportUsage = `gp trajectory export FILE --format atif [--out FILE]
      The episode in the Agent Trajectory Interchange Format (ATIF-v1.7), checked against the
      format's rules, to stdout or written atomically to --out. Token ids and log-probabilities
      go with the steps that recorded them; each step keeps our whole record in its extras, so
      the viewer shows the export as it shows the episode.`;

/** Whether to colour: a terminal that has not asked for no colour. */
export function colourWanted(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env['NO_COLOR'] === undefined;
}

type Paint = (code: number, text: string) => string;

/**
 * The trajectory in FILE, in whichever format it is (told from its content); the file's problems
 * go to stderr. Undefined, with the reason on stderr, when it cannot be read or holds no episode.
 */
export async function loadOpened(command: CommandUsage, file: string, io: Io, cwd: string, sample?: string): Promise<OpenedEpisode | undefined> {
  const path = resolve(cwd, file);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    io.err(missing ? `gp ${command.name}: ${file} does not exist.` : `gp ${command.name}: cannot read ${file} (${errorMessage(error)}).`);
    return undefined;
  }
  const text = looksLikeZip(bytes) ? '' : bytes.toString('utf8');
  let opened: OpenedEpisode;
  if (!looksLikeZip(bytes) && (looksLikeOurJsonl(text) || path.endsWith('.jsonl'))) opened = { kind: 'ours', model: buildEpisodeModel(parseTrajectory(text)) };
  else {
    try {
      opened = looksLikeZip(bytes) ? readInspectEval(bytes, basename(path), sample) : openDocument(text, path, sample);
    } catch (error) {
      if (!(error instanceof TrajectoryFormatError)) throw error;
      io.err(`gp ${command.name}: ${visibleText(error.message)}`);
      return undefined;
    }
  }
  const problems = opened.kind === 'ours' ? opened.model.problems : opened.episode.problems;
  for (const p of problems) io.err(`${file}: ${visibleText(p)}`);
  if (opened.kind === 'ours' && opened.model.start === undefined && opened.model.steps.length === 0 && opened.model.end === undefined) {
    io.err(`gp ${command.name}: ${file} holds no trajectory record (a trajectory starts with a "start" line).`);
    return undefined;
  }
  return opened;
}

/** Our episode in FILE (our JSONL, or our own ATIF export); another tool's trajectory is refused with why. */
export async function loadEpisode(command: CommandUsage, file: string, io: Io, cwd: string): Promise<EpisodeModel | undefined> {
  const opened = await loadOpened(command, file, io, cwd);
  if (opened === undefined) return undefined;
  if (opened.kind === 'foreign') {
    io.err(
      `gp ${command.name}: ${file} is a trajectory in another tool's format (${formatOf(opened.episode)}); this command works on Graph Planner episodes (gp trajectory show reads it).`,
    );
    return undefined;
  }
  return opened.model;
}

export const trajectoryShowOptions = { step: { type: 'string' }, sample: { type: 'string' }, json: { type: 'boolean' } } as const;

export const trajectoryExportOptions = { format: { type: 'string' }, out: { type: 'string' } } as const;

export async function trajectoryShow(argv: readonly string[], io: Io, cwd: string, colour = colourWanted()): Promise<number> {
  const command = { name: 'trajectory show', usage: trajectoryShowUsage };
  const args = parseCommandArgs(command, argv, trajectoryShowOptions, io);
  if (!args.ok) return args.exit;
  const step = intFlag('--step', args.values.step, args.errors);
  if (args.positionals.length !== 1) args.errors.push('name one trajectory file.');
  if (args.errors.length > 0) return usageError(command, io, args.errors);
  const file = args.positionals[0] ?? '';
  const opened = await loadOpened(command, file, io, cwd, args.values.sample);
  if (opened === undefined) return 1;
  const format = opened.kind === 'foreign' ? opened.episode.format : opened.format;
  if (args.values.sample !== undefined && format?.sample !== args.values.sample) {
    const keys = (format?.samples ?? []).map((s) => visibleText(s.key));
    io.err(
      `gp trajectory show: ${file} has no sample ${visibleText(args.values.sample)}${keys.length === 0 ? ' (it holds one episode)' : `; its samples: ${keys.slice(0, 20).join(', ')}${keys.length > 20 ? ', …' : ''}`}.`,
    );
    return 1;
  }
  const paint: Paint = colour ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
  if (opened.kind === 'foreign') return showForeign(opened.episode, file, step, args.values.json === true, io, paint);
  const model = opened.model;
  const chosen = step === undefined ? model.steps : model.steps.filter((s) => s.step === step);
  if (step !== undefined && chosen.length === 0) {
    io.err(`gp trajectory show: ${file} has no step ${step} (it has ${model.steps.length}).`);
    return 1;
  }
  if (args.values.json === true) {
    io.out(
      JSON.stringify(
        {
          start: model.start,
          steps: chosen.map(({ record, ...view }) => ({ ...view, record })),
          end: model.end,
          cutShort: model.cutShort,
          problems: model.problems,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  for (const line of header(model, paint)) io.out(line);
  for (const view of chosen) for (const line of stepBlock(view, step !== undefined, paint)) io.out(line);
  io.out(summaryLine(model, paint));
  return 0;
}

function showForeign(episode: ForeignEpisode, file: string, step: number | undefined, json: boolean, io: Io, paint: Paint): number {
  const chosen = step === undefined ? episode.steps : episode.steps.filter((s) => s.step === step);
  if (step !== undefined && chosen.length === 0) {
    io.err(`gp trajectory show: ${file} has no step ${step} (it has ${episode.steps.length}).`);
    return 1;
  }
  if (json) {
    io.out(
      JSON.stringify(
        { format: episode.format, taskId: episode.taskId, episodeId: episode.episodeId, agent: episode.agent, steps: chosen, problems: episode.problems },
        null,
        2,
      ),
    );
    return 0;
  }
  for (const line of foreignHeader(episode, file, paint)) io.out(line);
  for (const s of chosen) for (const line of foreignStepBlock(s, step !== undefined, paint)) io.out(line);
  io.out(foreignSummaryLine(episode));
  return 0;
}

/**
 * A recorded text as shown: a model reply, an observation or an id may hold escape sequences, which
 * are shown, not sent, here where the command's own colours are added around them (cli/main.ts
 * would let a colour in the data through, since it looks like ours).
 */
const v = visibleText;

function header(model: EpisodeModel, paint: Paint): string[] {
  const s = model.start;
  if (s === undefined) return [paint(33, 'no start line: the task and agent are unknown')];
  return [
    // The episode's one name (protocol/episodeName.ts); an attempt's says its task, so the task follows only the others.
    paint(
      1,
      episodeAttempt({ episodeId: s.episode_id, taskId: s.task_id }) === null
        ? `${v(episodeName({ episodeId: s.episode_id, taskId: s.task_id }))}  task ${v(s.task_id)}`
        : v(episodeName({ episodeId: s.episode_id, taskId: s.task_id })),
    ),
    `agent ${v(s.agent)} · backend ${s.backend}${s.backend_fallback === undefined ? '' : ` (fell back: ${v(s.backend_fallback.reason)})`}${s.sandbox_host === undefined ? '' : ` · node ${v(s.sandbox_host.node)} (host ${v(s.sandbox_host.id)})`} · at most ${s.max_steps} steps · started ${s.started_at}`,
    ...(s.fork === undefined
      ? []
      : [
          paint(
            36,
            `fork of ${v(s.fork.episode_id)} (${v(s.fork.trajectory)}) from step ${s.fork.step}${s.fork.step > 1 ? `: steps 1..${s.fork.step - 1} replayed from it` : ''}`,
          ),
        ]),
    `issue: ${v(s.observation.issue.title)}`,
    '',
  ];
}

const kindColours: Record<StepView['kind'], number> = { find: 36, expand: 36, read: 36, memory: 35, repair: 33, submit: 32, noop: 90, invalid: 31 };

function stepBlock(view: StepView, whole: boolean, paint: Paint): string[] {
  const r = view.record;
  const lines = [
    `${paint(1, `step ${view.step}`)}  ${paint(kindColours[view.kind], v(view.summary))}  reward ${view.reward.toFixed(2)} (return ${view.cumulative.toFixed(2)})  ${Math.round(view.durationMs)} ms`,
  ];
  const flag = (text: string) => lines.push(`  ${paint(31, text)}`);
  if (r.replayed === true) lines.push(`  ${paint(90, "replayed from the fork's parent")}`);
  if (view.protocolError !== null) flag(`protocol error: ${v(view.protocolError)}`);
  if (view.fallback !== null) lines.push(`  ${paint(33, `fallback: ${v(view.fallback)}`)}`);
  if (view.error !== null) flag(`error: ${v(view.error)}`);
  if (view.timedOut) flag(`timed out (${r.termination_reason ?? ''})`);
  if (r.done && r.termination_reason !== undefined && !view.timedOut) lines.push(`  ended: ${r.termination_reason}`);
  if (r.action?.thought !== undefined && r.action.thought !== '') lines.push(`  thought: ${v(r.action.thought)}`);
  if (whole && r.response !== undefined) lines.push('  reply:', ...indent(v(r.response)));
  const text = v(r.observation.text);
  const shown = whole ? text.split('\n') : text.split('\n').slice(0, 6);
  lines.push('  observation:', ...indent(shown.join('\n')));
  if (!whole && text.split('\n').length > shown.length)
    lines.push(paint(90, `    … ${text.split('\n').length - shown.length} more lines (--step ${view.step} shows them)`));
  lines.push('');
  return lines;
}

function indent(text: string): string[] {
  return text.split('\n').map((l) => `    ${l}`);
}

function summaryLine(model: EpisodeModel, paint: Paint): string {
  const e = model.end;
  if (e === undefined) {
    const total = model.steps.at(-1)?.cumulative ?? 0;
    return paint(33, `cut short after ${model.steps.length} steps (no end line: still running, or its process died); return so far ${total.toFixed(2)}`);
  }
  const outcome = e.resolved ? paint(32, 'resolved') : paint(31, 'not resolved');
  const diverged =
    e.fork_divergence === undefined
      ? ''
      : `\n${paint(31, `the fork's replay diverged at ${e.fork_divergence.step === 0 ? 'the reset' : `step ${e.fork_divergence.step}`} (${v(e.fork_divergence.where)}): recorded ${v(e.fork_divergence.recorded)}; replayed ${v(e.fork_divergence.replayed)}`)}`;
  return `${outcome} · ${e.termination_reason} · reward ${e.total_reward.toFixed(2)} · ${e.steps} steps · ${(e.duration_ms / 1000).toFixed(1)} s${e.error === undefined ? '' : ` · ${v(e.error)}`}${diverged}`;
}

export async function trajectoryExport(argv: readonly string[], io: Io, cwd: string, version: string): Promise<number> {
  const command = { name: 'trajectory export', usage: trajectoryExportUsage };
  const args = parseCommandArgs(command, argv, trajectoryExportOptions, io);
  if (!args.ok) return args.exit;
  if (args.positionals.length !== 1) args.errors.push('name one trajectory file.');
  if (args.values.format !== 'atif')
    args.errors.push(args.values.format === undefined ? 'give --format atif.' : `--format ${args.values.format} is not known; the one format is atif.`);
  if (args.errors.length > 0) return usageError(command, io, args.errors);
  const file = args.positionals[0] ?? '';
  const model = await loadEpisode(command, file, io, cwd);
  if (model === undefined) return 1;
  if (model.cutShort) io.err(`warning: ${file} has no end line; the export says so in its notes.`);
  const text = `${JSON.stringify(toAtif(model, { version }), null, 2)}\n`;
  if (args.values.out === undefined) io.out(text.trimEnd());
  else {
    await writeFileAtomic(resolve(cwd, args.values.out), text);
    io.err(`wrote ${args.values.out}`);
  }
  return 0;
}
