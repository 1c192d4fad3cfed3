/**
 * `gp trajectory show` for another tool's trajectory (ATIF, SWE-agent, mini-swe-agent): the same
 * shape as for ours (a header, one block per step, a summary line), saying what the format does not
 * record instead of printing zeros. Every text from the file passes through `visibleText`, so a
 * control character in it is shown, not sent to the terminal.
 */
import { formatLabel, type ForeignStep } from '../protocol/episodeView.js';
import { visibleText as v } from '../protocol/terminalText.js';
import { foreignSummary, type ForeignEpisode } from '../formats/index.js';

type Paint = (code: number, text: string) => string;

/** The format's name as the viewer's badge gives it, safe for a terminal. */
export function formatOf(episode: ForeignEpisode): string {
  return v(formatLabel(episode.format));
}

export function foreignHeader(e: ForeignEpisode, file: string, paint: Paint): string[] {
  const lines = [paint(1, `${v(e.taskId ?? e.episodeId ?? file)}  ${formatOf(e)}, read-only`)];
  const facts = [
    e.agent !== null && `agent ${v(e.agent)}`,
    e.episodeId !== null && e.episodeId !== e.taskId && `id ${v(e.episodeId)}`,
    e.startedAt !== null && `started ${v(e.startedAt)}`,
  ].filter((x): x is string => typeof x === 'string');
  if (facts.length > 0) lines.push(facts.join(' · '));
  if (e.issue !== null) lines.push(`task: ${v(e.issue.title)}`);
  const samples = e.format.samples ?? [];
  if (samples.length > 1) {
    const shown = samples.findIndex((s) => s.key === e.format.sample);
    lines.push(`sample ${shown + 1} of ${samples.length}; --sample KEY shows another:`);
    for (const s of samples) lines.push(`  ${s.key === e.format.sample ? '*' : ' '} ${v(s.key)}  ${paint(90, v(s.label))}`);
  }
  for (const lack of e.format.lacks) lines.push(paint(90, v(lack)));
  lines.push('');
  return lines;
}

const sourceColours: Record<ForeignStep['source'], number> = { system: 90, user: 35, agent: 36 };

export function foreignStepBlock(s: ForeignStep, whole: boolean, paint: Paint): string[] {
  const figures = [
    s.reward === null ? 'no reward recorded' : `reward ${s.reward.toFixed(2)}`,
    s.durationMs === null ? '' : `${Math.round(s.durationMs)} ms`,
    s.timestamp ?? '',
  ].filter((x) => x !== '');
  const lines = [`${paint(1, `step ${s.step}`)}  ${paint(sourceColours[s.source], s.source)}  ${v(foreignSummary(s))}  ${paint(90, figures.join('  '))}`];
  for (const p of s.problems) lines.push(`  ${paint(33, `breaks the format: ${v(p)}`)}`);
  if (s.copiedContext) lines.push('  copied context (from an earlier trajectory)');
  if (s.reasoning !== null && s.reasoning !== '') lines.push('  reasoning:', ...clipped(s.reasoning, whole, s.step, paint));
  if (s.message !== '') lines.push('  message:', ...clipped(s.message, whole, s.step, paint));
  for (const c of s.toolCalls)
    lines.push(
      `  tool call ${v(c.name)}${c.id === null ? '' : ` (${v(c.id)})`}: ${v(typeof c.arguments === 'string' ? c.arguments : (JSON.stringify(c.arguments) ?? ''))}`,
    );
  for (const r of s.results) {
    lines.push(`  observation${r.callId === null ? '' : ` of ${v(r.callId)}`}:`, ...clipped(r.content, whole, s.step, paint));
    if (r.subagents.length > 0) lines.push(`    subagent trajectory: ${r.subagents.map(v).join(', ')}`);
  }
  for (const m of s.media) lines.push(`  ${m.kind} ${v(m.path)} (${v(m.mediaType)})`);
  lines.push('');
  return lines;
}

function clipped(text: string, whole: boolean, step: number, paint: Paint): string[] {
  const all = v(text).split('\n');
  const shown = whole ? all : all.slice(0, 6);
  const out = shown.map((l) => `    ${l}`);
  if (shown.length < all.length) out.push(paint(90, `    … ${all.length - shown.length} more lines (--step ${step} shows them)`));
  return out;
}

export function foreignSummaryLine(e: ForeignEpisode): string {
  return [`${e.steps.length} steps`, ...e.format.facts.map(v), 'no reward or verdict recorded'].join(' · ');
}
