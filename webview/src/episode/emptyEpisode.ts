/**
 * What the viewer says in place of a step when the episode has none to show. A live episode with
 * no step yet says so; one that ended (or whose run ended) before its first step says how: its
 * outcome, why it ended, the failure, and the run's own reason when the server read it
 * (`EpisodeHeader.run`). Pure, so it is tested without a page.
 */
import type { EpisodeHeader } from '../../../server/src/protocol/episodeView.js';

export interface EmptyEpisodeMessage {
  /** `live`: still running; `ended`: over, with what happened; `empty`: a file with no steps. */
  readonly kind: 'live' | 'ended' | 'empty';
  readonly title: string;
  /** Sentences under the title, each its own line. */
  readonly lines: readonly string[];
}

const runEnded: Record<string, string> = { finished: 'finished', failed: 'failed', interrupted: 'was interrupted', unknown: 'has no readable status' };

export function emptyEpisodeMessage(header: EpisodeHeader): EmptyEpisodeMessage {
  const run = header.run;
  const runLine =
    run === undefined || run.state === 'running' ? [] : [`Run ${run.name} ${runEnded[run.state] ?? run.state}${run.reason === null ? '.' : `: ${run.reason}`}`];
  const o = header.outcome;
  if (o !== null) {
    const what = o.noOutcome != null ? `No outcome (${o.noOutcome})` : o.resolved ? 'Resolved' : 'Not resolved';
    return {
      kind: 'ended',
      title: `The episode ended before its first step: ${o.terminationReason}.`,
      lines: [
        `${what} after ${(o.durationMs / 1000).toFixed(1)} s`,
        ...(o.error !== null && o.error !== '' ? [`Failure: ${o.error}`] : []),
        ...(o.noOutcome != null ? ['It is not counted in any rate, and a resume runs it again.'] : []),
        ...runLine,
      ],
    };
  }
  if (header.format !== undefined) return { kind: 'empty', title: 'The file holds no steps.', lines: [] };
  if (run !== undefined && run.state !== 'running') {
    return {
      kind: 'ended',
      title: 'The episode recorded no step and no end: its run stopped before it did.',
      lines: [...runLine, 'The run log (Runs view, Show Log) has the details; a resume runs the episode again.'],
    };
  }
  return {
    kind: 'live',
    title: 'No steps yet.',
    lines: run === undefined ? ['New steps appear as the episode writes them.'] : [`Run ${run.name} is running; new steps appear as the episode writes them.`],
  };
}
