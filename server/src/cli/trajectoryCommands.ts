/**
 * `gp trajectory show FILE [--step N] [--json]` and `gp trajectory export FILE --format atif
 * [--out FILE]`: an episode read in a terminal, or written in the Agent Trajectory Interchange
 * Format for other tools. Both read the episode through `runs/episodeModel.ts`, which the
 * trajectory viewer shares. Exit codes: 0 when it worked, 1 when the file cannot be read or holds
 * no episode, 2 for a usage error.
 */
import { resolve } from 'node:path';
import { buildEpisodeModel, readTrajectory, toAtif, type EpisodeModel, type StepView } from '../runs/index.js';
import { visibleText } from '../protocol/terminalText.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { errorMessage } from '../util/errors.js';
import { parseCommandArgs, usageError, type CommandUsage } from './args.js';
import { intFlag, type Io } from './output.js';

export const trajectoryShowUsage = `gp trajectory show FILE [--step N] [--json]
      An episode from its trajectory (trajectories/<episode>.jsonl): the task, agent and
      outcome, then one block per step (action, reward and return, time, what went wrong,
      and the observation the agent saw next), ending with a summary line. --step N shows
      that step whole. A trajectory without its end line is shown as cut short.`;
export const trajectoryExportUsage = `gp trajectory export FILE --format atif [--out FILE]
      The episode in the Agent Trajectory Interchange Format (ATIF v1.4), checked against the
      format's rules, to stdout or written atomically to --out.`;

/** Whether to colour: a terminal that has not asked for no colour. */
export function colourWanted(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env['NO_COLOR'] === undefined;
}

type Paint = (code: number, text: string) => string;

export async function loadEpisode(command: CommandUsage, file: string, io: Io, cwd: string): Promise<EpisodeModel | undefined> {
  const path = resolve(cwd, file);
  let read;
  try {
    read = await readTrajectory(path);
  } catch (error) {
    io.err(`gp ${command.name}: cannot read ${file} (${errorMessage(error)}).`);
    return undefined;
  }
  if (read === undefined) {
    io.err(`gp ${command.name}: ${file} does not exist.`);
    return undefined;
  }
  const model = buildEpisodeModel(read);
  for (const p of model.problems) io.err(`${file}: ${p}`);
  if (model.start === undefined && model.steps.length === 0 && model.end === undefined) {
    io.err(`gp ${command.name}: ${file} holds no trajectory record (a trajectory starts with a "start" line).`);
    return undefined;
  }
  return model;
}

export const trajectoryShowOptions = { step: { type: 'string' }, json: { type: 'boolean' } } as const;

export const trajectoryExportOptions = { format: { type: 'string' }, out: { type: 'string' } } as const;

export async function trajectoryShow(argv: readonly string[], io: Io, cwd: string, colour = colourWanted()): Promise<number> {
  const command = { name: 'trajectory show', usage: trajectoryShowUsage };
  const args = parseCommandArgs(command, argv, trajectoryShowOptions, io);
  if (!args.ok) return args.exit;
  const step = intFlag('--step', args.values.step, args.errors);
  if (args.positionals.length !== 1) args.errors.push('name one trajectory file.');
  if (args.errors.length > 0) return usageError(command, io, args.errors);
  const file = args.positionals[0] ?? '';
  const model = await loadEpisode(command, file, io, cwd);
  if (model === undefined) return 1;
  const chosen = step === undefined ? model.steps : model.steps.filter((s) => s.step === step);
  if (step !== undefined && chosen.length === 0) {
    io.err(`gp trajectory show: ${file} has no step ${step} (it has ${model.steps.length}).`);
    return 1;
  }
  if (args.values.json === true) {
    io.out(JSON.stringify({ start: model.start, steps: chosen.map(({ record, ...view }) => ({ ...view, record })), end: model.end, cutShort: model.cutShort, problems: model.problems }, null, 2));
    return 0;
  }
  const paint: Paint = colour ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
  for (const line of header(model, paint)) io.out(line);
  for (const view of chosen) for (const line of stepBlock(view, step !== undefined, paint)) io.out(line);
  io.out(summaryLine(model, paint));
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
    paint(1, `${v(s.episode_id)}  task ${v(s.task_id)}`),
    `agent ${v(s.agent)} · backend ${s.backend}${s.backend_fallback === undefined ? '' : ` (fell back: ${v(s.backend_fallback.reason)})`}${s.sandbox_host === undefined ? '' : ` · node ${v(s.sandbox_host.node)} (host ${v(s.sandbox_host.id)})`} · at most ${s.max_steps} steps · started ${s.started_at}`,
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
  if (!whole && text.split('\n').length > shown.length) lines.push(paint(90, `    … ${text.split('\n').length - shown.length} more lines (--step ${view.step} shows them)`));
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
  return `${outcome} · ${e.termination_reason} · reward ${e.total_reward.toFixed(2)} · ${e.steps} steps · ${(e.duration_ms / 1000).toFixed(1)} s${e.error === undefined ? '' : ` · ${v(e.error)}`}`;
}

export async function trajectoryExport(argv: readonly string[], io: Io, cwd: string, version: string): Promise<number> {
  const command = { name: 'trajectory export', usage: trajectoryExportUsage };
  const args = parseCommandArgs(command, argv, trajectoryExportOptions, io);
  if (!args.ok) return args.exit;
  if (args.positionals.length !== 1) args.errors.push('name one trajectory file.');
  if (args.values.format !== 'atif') args.errors.push(args.values.format === undefined ? 'give --format atif.' : `--format ${args.values.format} is not known; the one format is atif.`);
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
