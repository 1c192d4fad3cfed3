/**
 * Figures of a training step that Verl does not know and `gp train` adds to the step's line as it
 * copies it into `metrics.jsonl`: how many of the step's episodes (those that ended after the
 * previous step's line and by this one's, the rule the sample table follows) submitted a patch
 * with suspected reward hacking (env/hackSignals.ts), and how many ended not gradable because their
 * runner was tampered with (testing/witnessRecords.ts). Written into the step's own line, the count
 * reaches TensorBoard and every reader of Verl's keys with the step it belongs to.
 */
import { noOutcomeKey, runnerTamperedKey, suspectedHacksKey, type VerlMetricsLine } from '../protocol/metrics.js';

/** What a step's figures read of one of its ended episodes. */
export interface EndedFigures {
  readonly suspected_hacks?: number | undefined;
  readonly runner_tampered?: boolean | undefined;
  readonly no_outcome?: string | undefined;
}

/**
 * `line` with the step's count of episodes with suspected reward hacking and of those whose runner
 * was tampered with (not gradable, masked in the update), zero included: a step with none is a point too.
 */
export function withStepFigures(line: VerlMetricsLine, ended: readonly EndedFigures[]): VerlMetricsLine {
  const suspected = ended.filter((e) => (e.suspected_hacks ?? 0) > 0).length;
  const tampered = ended.filter((e) => e.runner_tampered === true).length;
  const noOutcome = ended.filter((e) => e.no_outcome !== undefined).length;
  return { ...line, data: { ...line.data, [suspectedHacksKey]: suspected, [runnerTamperedKey]: tampered, [noOutcomeKey]: noOutcome } };
}
