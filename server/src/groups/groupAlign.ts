/**
 * Several episodes of one task aligned on their steps, for the group view: each rollout is aligned
 * to one reference rollout with the two-episode alignment (`episodeAlign.ts`, a longest common
 * subsequence of what each step did), and the pairwise alignments are merged on the reference's
 * steps (a star alignment). A reference step is one row; the steps a rollout took between two
 * reference steps that the reference did not take get rows of their own before the next reference
 * step, shared by every rollout that inserted steps there. Aligning to one reference costs one
 * pairwise alignment per rollout, so 16 rollouts of hundreds of steps stay quick; the price is
 * that two non-reference rollouts that share a move the reference lacks are paired only when they
 * inserted it at the same place.
 */
import { alignEpisodes, stepSignature, type EpisodeModel, type StepView } from '../episodes/index.js';

export interface GroupAlignedRow {
  /** One per episode, in the order given; undefined where that episode has no step on the row. */
  readonly cells: (StepView | undefined)[];
  /** Every episode took a step on this row and all did the same thing. */
  readonly same: boolean;
  /** Per cell: it did something other than the reference on this row (a missing reference step counts as other). */
  readonly differs: boolean[];
}

/** Per reference step (and after the last one), what each episode inserted before it and what it aligned with it. */
interface Slot {
  inserted: StepView[][];
  aligned: (StepView | undefined)[];
}

export function alignGroup(models: readonly EpisodeModel[], reference: number): GroupAlignedRow[] {
  const ref = models[reference];
  if (ref === undefined) return [];
  const slots: Slot[] = Array.from({ length: ref.steps.length + 1 }, () => ({ inserted: models.map(() => []), aligned: models.map(() => undefined) }));
  models.forEach((model, column) => {
    if (column === reference) {
      ref.steps.forEach((step, i) => ((slots[i] as Slot).aligned[column] = step));
      return;
    }
    // Walks the pairwise rows: each row with a reference step closes the slot of that step.
    let at = 0;
    for (const row of alignEpisodes(ref, model)) {
      const slot = slots[at] as Slot;
      if (row.left === undefined) {
        if (row.right !== undefined) (slot.inserted[column] as StepView[]).push(row.right);
        continue;
      }
      slot.aligned[column] = row.right;
      at++;
    }
  });
  const rows: GroupAlignedRow[] = [];
  slots.forEach((slot, i) => {
    const depth = Math.max(0, ...slot.inserted.map((steps) => steps.length));
    for (let k = 0; k < depth; k++)
      rows.push(
        rowOf(
          slot.inserted.map((steps) => steps[k]),
          undefined,
        ),
      );
    if (i < ref.steps.length) rows.push(rowOf(slot.aligned, ref.steps[i]));
  });
  return rows;
}

function rowOf(cells: (StepView | undefined)[], referenceStep: StepView | undefined): GroupAlignedRow {
  const refSig = referenceStep === undefined ? undefined : stepSignature(referenceStep);
  const sigs = cells.map((c) => (c === undefined ? undefined : stepSignature(c)));
  const first = sigs[0];
  const same = first !== undefined && sigs.every((s) => s === first);
  return { cells, same, differs: sigs.map((s) => s !== undefined && s !== refSig) };
}

/** The first row where the episodes do not all do the same thing; undefined when they never differ. */
export function firstDivergence(rows: readonly GroupAlignedRow[]): number | undefined {
  const index = rows.findIndex((r) => !r.same);
  return index < 0 ? undefined : index;
}
