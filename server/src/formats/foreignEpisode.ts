/**
 * An episode from another tool's trajectory (ATIF, SWE-agent, mini-swe-agent), as the viewer and
 * `gp trajectory show` step through it: its format and what that format lacks, the facts the file
 * states about its outcome, and one `ForeignStep` (protocol/episodeView.ts) per step. The readers
 * (`atifRead.ts`, `sweAgentRead.ts`, `miniSweAgentRead.ts`) build it; a value the file does not
 * record stays null here and is said to be missing, never filled in.
 */
import type { EpisodeFormat, ForeignStep, StepRow } from '../protocol/episodeView.js';
import type { SearchField } from '../episodes/index.js';

export interface ForeignEpisode {
  readonly format: EpisodeFormat;
  /** The task or instance the trajectory is about, when the file names it. */
  readonly taskId: string | null;
  /** The session or trajectory id. */
  readonly episodeId: string | null;
  /** The agent (and model) that produced it. */
  readonly agent: string | null;
  readonly startedAt: string | null;
  /** The task as the user gave it, when the file has a first user message. */
  readonly issue: { readonly title: string; readonly body: string } | null;
  readonly steps: readonly ForeignStep[];
  /** Where the file breaks its format's rules, each with its JSON path and line. */
  readonly problems: readonly string[];
}

/** A step with nothing filled in but what every format has; readers set the rest. */
export function blankStep(step: number, source: ForeignStep['source'], origin: string, message: string): ForeignStep {
  return {
    type: 'foreign',
    step,
    source,
    origin,
    timestamp: null,
    model: null,
    message,
    reasoning: null,
    toolCalls: [],
    results: [],
    media: [],
    metrics: { promptTokens: null, completionTokens: null, cachedTokens: null, costUsd: null, promptTokenIds: null, completionTokenIds: null, logprobs: null },
    reward: null,
    durationMs: null,
    state: {},
    copiedContext: false,
    extra: null,
    problems: [],
  };
}

/** The row of each step, with the return so far while every step before it has a reward. */
export function foreignRows(episode: ForeignEpisode): StepRow[] {
  let cumulative: number | null = 0;
  return episode.steps.map((s) => {
    cumulative = cumulative === null || s.reward === null ? null : cumulative + s.reward;
    return {
      step: s.step,
      kind: s.source,
      summary: foreignSummary(s),
      reward: s.reward,
      cumulative,
      durationMs: s.durationMs,
      protocolError: null,
      fallback: null,
      // A step that breaks the format's rules is marked like a step with an error, so "problems only" finds it.
      error: s.problems.length === 0 ? null : s.problems.join('; '),
      timedOut: false,
      candidates: 0,
    };
  });
}

/** One line: the tool calls an agent made (`shell find . -type f`), else the first line of what was said. */
export function foreignSummary(step: ForeignStep): string {
  const calls = step.toolCalls.map((c) => `${c.name}${argumentsLine(c.arguments)}`);
  const said = firstLine(step.message) || firstLine(step.reasoning ?? '') || (step.media.length > 0 ? `[${step.media.map((m) => m.kind).join(', ')}]` : '');
  const text =
    calls.length > 0
      ? calls.join('; ')
      : said || (step.results.length > 0 ? `(${step.results.length} result${step.results.length === 1 ? '' : 's'})` : '(empty)');
  return `${step.copiedContext ? '(copied) ' : ''}${text}`.slice(0, 200);
}

function argumentsLine(args: unknown): string {
  if (typeof args === 'string') return args === '' ? '' : ` ${firstLine(args)}`;
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const values = Object.values(args);
    // One argument reads as the command it is (`shell find .`); several as JSON.
    if (values.length === 1 && typeof values[0] === 'string') return ` ${firstLine(values[0])}`;
    return values.length === 0 ? '' : ` ${JSON.stringify(args)}`;
  }
  return args === undefined ? '' : ` ${JSON.stringify(args)}`;
}

function firstLine(text: string): string {
  return text.trim().split('\n', 1)[0]?.trim() ?? '';
}

/** The texts search looks in, by the same fields as our own steps: what was said, thought, called and observed. */
export function foreignSearchFields(step: ForeignStep): [SearchField, string][] {
  return [
    ['reply', step.message],
    ['thought', step.reasoning ?? ''],
    [
      'action',
      step.toolCalls.length === 0
        ? ''
        : step.toolCalls.map((c) => `${c.name} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}`).join('\n'),
    ],
    ['observation', step.results.map((r) => r.content).join('\n')],
  ];
}
