/**
 * How wide the trajectory viewer's step list is beside the step's detail. By default a share of the
 * editor, so a maximised editor gives the list's summaries room instead of a fixed column (issue 37
 * found it about 390 px wide in a maximised editor); a width the person dragged to is kept as a
 * share too, so it follows the editor when the editor is resized. Either is held between a width
 * that still shows a step's number, glyph and a few words, and one that leaves the detail readable.
 */

/** The list's share of the editor until the person drags the splitter. */
export const defaultStepListShare = 0.42;
/** Narrower than this, a summary shows only a word or two beside the step's number, glyph, reward and time. */
export const minStepListPx = 300;
/** The step's detail keeps at least this much beside the list. */
export const minDetailPx = 360;

/** The list's width in CSS pixels for an editor `total` pixels wide, from the saved share or the default. */
export function stepListWidth(total: number, share: number | undefined): number {
  const wanted = Math.round(total * (share !== undefined && Number.isFinite(share) ? share : defaultStepListShare));
  const most = Math.max(minStepListPx, total - minDetailPx);
  return Math.min(most, Math.max(minStepListPx, wanted));
}

/** The share of the editor a width stands for, to keep in the webview state. */
export function stepListShare(width: number, total: number): number {
  return total > 0 ? stepListWidth(total, width / total) / total : defaultStepListShare;
}
