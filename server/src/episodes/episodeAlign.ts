/**
 * Two episodes of one task side by side (two attempts, two agents, before and after training):
 * their steps aligned by a longest common subsequence of what each step did (the action with its
 * parameters, its thought left out), so the same moves sit on one row and the moves only one
 * episode made sit against a gap. Rows whose actions differ are the ones a person looks at.
 */
import type { EpisodeModel, StepView } from './episodeModel.js';

export interface AlignedRow {
  readonly left: StepView | undefined;
  readonly right: StepView | undefined;
  /** Both sides did the same thing (same action and parameters). */
  readonly same: boolean;
}

/** What a step did, comparable across episodes: its action without the thought, or its kind when the reply did not parse. */
export function stepSignature(view: StepView): string {
  const action = view.record.action;
  if (action === undefined) return 'invalid';
  const { thought: _thought, ...params } = action;
  return JSON.stringify(params, Object.keys(params).sort());
}

export function alignEpisodes(a: EpisodeModel, b: EpisodeModel): AlignedRow[] {
  const left = a.steps.map(stepSignature);
  const right = b.steps.map(stepSignature);
  const n = left.length;
  const m = right.length;
  // lcs[i][j]: the longest common subsequence of left[i..] and right[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as Uint32Array;
    const below = lcs[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--) row[j] = left[i] === right[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
  }
  const rows: AlignedRow[] = [];
  const at = (x: number, y: number) => lcs[x]?.[y] ?? 0;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && left[i] === right[j]) {
      rows.push({ left: a.steps[i], right: b.steps[j], same: true });
      i++;
      j++;
    } else if (i < n && j < m && at(i + 1, j + 1) === at(i, j)) {
      // Skipping one step on each side loses no common move: the two steps differ on one row.
      rows.push({ left: a.steps[i], right: b.steps[j], same: false });
      i++;
      j++;
    } else if (j < m && (i >= n || at(i, j + 1) >= at(i + 1, j))) {
      rows.push({ left: undefined, right: b.steps[j], same: false });
      j++;
    } else {
      rows.push({ left: a.steps[i], right: undefined, same: false });
      i++;
    }
  }
  return rows;
}
