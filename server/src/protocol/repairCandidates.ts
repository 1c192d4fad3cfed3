/**
 * One numbering of a repair's candidates wherever a person or a model reads it (issue 37): the
 * action's list, the trajectory viewer's result, the model's observation text and the CLI all
 * call the candidate at `index` `#index+1`, and a result says what became of every proposed
 * candidate with those numbers, never renumbering the ones that were tried. Plain functions with
 * type-only imports, so the webview pages use them without bundling a schema.
 */
import type { ActionResult, CandidateOutcome } from './observation.js';

type RepairResult = Extract<ActionResult, { kind: 'repair' }>;

/** `#3` for the candidate at index 2: the number the action's list shows it under. */
export function candidateNumber(index: number): string {
  return `#${index + 1}`;
}

/** `#1–#4, #7, #9–#10`: indices (any order) as runs of candidate numbers. */
export function candidateRanges(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] ?? 0) === (sorted[j] ?? 0) + 1) j++;
    const from = sorted[i] ?? 0;
    const to = sorted[j] ?? 0;
    runs.push(from === to ? candidateNumber(from) : `${candidateNumber(from)}–${candidateNumber(to)}`);
    i = j + 1;
  }
  return runs.join(', ');
}

export type CandidateFate = 'kept' | 'passed' | 'failed' | 'refused' | 'not-tried';

/** What became of one candidate: a step that ran out of time left the rest not tried, not refused. */
export function candidateFate(candidate: CandidateOutcome, kept: number | undefined): CandidateFate {
  if (kept === candidate.index) return 'kept';
  if (candidate.error !== undefined) return candidate.error.code === 'step-timeout' || candidate.error.code === 'aborted' ? 'not-tried' : 'refused';
  if (candidate.tests === undefined) return 'not-tried';
  return candidate.tests.passed ? 'passed' : 'failed';
}

const fateWords: Record<CandidateFate, string> = { kept: 'kept', passed: 'tests passed', failed: 'tests failed', refused: 'refused', 'not-tried': 'not tried' };

/**
 * How many candidates were proposed: the recorded count; for a trajectory from before it was
 * recorded, the action's own list when it had one, else those the result lists.
 */
export function proposedCount(result: RepairResult, actionPatches?: number): number {
  return Math.max(result.proposed ?? actionPatches ?? 0, result.candidates.length);
}

/**
 * Why candidates were not tried, in words: after the kept one (the first that passes is kept),
 * with `apply: false` (only proposed), or because the step ran out of time.
 */
function notTriedWhy(result: RepairResult): string {
  if (!result.apply) return 'proposed only (apply: false)';
  if (result.kept !== undefined) return `${candidateNumber(result.kept)} passed first`;
  return 'the step ran out of time';
}

/**
 * The result in one line with the action's numbers: `27 candidates from the action · #1–#22 tests
 * failed · #23 kept · #24–#27 not tried: #23 passed first`. Candidates past the limit per repair
 * are named as such.
 */
export function repairHeadline(result: RepairResult, actionPatches?: number): string {
  const proposed = proposedCount(result, actionPatches);
  const from = result.source === 'action' ? 'the action' : 'the patch model';
  const parts = [`${proposed} ${proposed === 1 ? 'candidate' : 'candidates'} from ${from}`];
  const byFate = new Map<CandidateFate, number[]>();
  for (const c of result.candidates) {
    const fate = candidateFate(c, result.kept);
    byFate.set(fate, [...(byFate.get(fate) ?? []), c.index]);
  }
  for (const fate of ['failed', 'refused', 'passed', 'kept', 'not-tried'] as const) {
    const indices = byFate.get(fate);
    if (indices === undefined) continue;
    parts.push(`${candidateRanges(indices)} ${fateWords[fate]}${fate === 'not-tried' ? `: ${notTriedWhy(result)}` : ''}`);
  }
  const listed = result.candidates.length;
  // An older trajectory listed candidates only up to the kept one; a newer one lists all within the limit.
  const unlisted = result.proposed === undefined ? notTriedWhy(result) : 'over the limit of candidates per repair (env.max_repair_candidates)';
  if (proposed > listed) parts.push(`${candidateRanges(Array.from({ length: proposed - listed }, (_, i) => listed + i))} not tried: ${unlisted}`);
  if (result.apply && result.kept === undefined && proposed > 0) parts.push('none kept');
  return parts.join(' · ');
}

/** One candidate's outcome in a few words, for a table cell or a line of text. */
export function candidateOutcomeWords(candidate: CandidateOutcome, kept: number | undefined): string {
  const fate = candidateFate(candidate, kept);
  if (fate === 'refused' && candidate.error !== undefined) return `refused: ${candidate.error.code}`;
  return fateWords[fate];
}
