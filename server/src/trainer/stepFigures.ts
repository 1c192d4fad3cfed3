/**
 * Figures of a training step that Verl does not know and `gp train` adds to the step's line as it
 * copies it into `metrics.jsonl`: how many of the step's episodes (those that ended after the
 * previous step's line and by this one's, the rule the sample table follows) submitted a patch
 * with suspected reward hacking (env/hackSignals.ts). Written into the step's own line, the count
 * reaches TensorBoard and every reader of Verl's keys with the step it belongs to.
 */
import { suspectedHacksKey, type VerlMetricsLine } from '../protocol/metrics.js';

/** `line` with the step's count of episodes with suspected reward hacking, zero included (a step with none is a point too). */
export function withStepFigures(line: VerlMetricsLine, ended: readonly { readonly suspected_hacks?: number | undefined }[]): VerlMetricsLine {
  const suspected = ended.filter((e) => (e.suspected_hacks ?? 0) > 0).length;
  return { ...line, data: { ...line.data, [suspectedHacksKey]: suspected } };
}
