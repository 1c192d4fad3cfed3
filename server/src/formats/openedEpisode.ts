/**
 * A trajectory file as the viewer and `gp trajectory show` open it, whatever its format: one of our
 * episodes (our JSONL, or our own ATIF export read back, which carries our records whole), or another
 * tool's (`foreignEpisode.ts`). The viewer's requests go through the functions here, so stepping,
 * search and filters work the same on both.
 */
import type { EpisodeFormat, EpisodeHeader, EpisodeStepRecord, StepRow } from '../protocol/episodeView.js';
import { type EpisodeModel, episodeHeader, stepRow, searchEpisode, searchSteps, type SearchMatch, type SearchOptions } from '../episodes/index.js';
import { foreignRows, foreignSearchFields, type ForeignEpisode } from './foreignEpisode.js';

export type OpenedEpisode =
  /** `format` is set when our episode was read from another format (our ATIF export). */
  { readonly kind: 'ours'; readonly model: EpisodeModel; readonly format?: EpisodeFormat } | { readonly kind: 'foreign'; readonly episode: ForeignEpisode };

export function openedHeader(file: string, opened: OpenedEpisode): EpisodeHeader {
  if (opened.kind === 'ours') {
    const header = episodeHeader(file, opened.model);
    return opened.format === undefined ? header : { ...header, format: opened.format };
  }
  const e = opened.episode;
  return {
    file,
    episodeId: e.episodeId,
    taskId: e.taskId,
    agent: e.agent,
    backend: null,
    backendFallback: null,
    image: null,
    sandboxHost: null,
    issue: e.issue,
    maxSteps: null,
    startedAt: e.startedAt,
    // Another tool's trajectory has no outcome in our sense (resolved, total reward); its own facts are in `format`.
    outcome: null,
    cutShort: false,
    torn: false,
    problems: [...e.problems],
    format: e.format,
  };
}

export function openedStepCount(opened: OpenedEpisode): number {
  return opened.kind === 'ours' ? opened.model.steps.length : opened.episode.steps.length;
}

/** The rows after the first `from`. */
export function openedRows(opened: OpenedEpisode, from = 0): StepRow[] {
  return opened.kind === 'ours' ? opened.model.steps.slice(from).map(stepRow) : foreignRows(opened.episode).slice(from);
}

/** The full records of the steps asked for, in step order. */
export function openedRecords(opened: OpenedEpisode, steps: Iterable<number>): EpisodeStepRecord[] {
  const wanted = new Set(steps);
  return opened.kind === 'ours'
    ? opened.model.steps.filter((s) => wanted.has(s.step)).map((s) => s.record)
    : opened.episode.steps.filter((s) => wanted.has(s.step));
}

export function searchOpened(opened: OpenedEpisode, query: string, options: SearchOptions = {}): SearchMatch[] {
  if (opened.kind === 'ours') return searchEpisode(opened.model, query, options);
  return searchSteps(
    opened.episode.steps.map((s) => ({ step: s.step, fields: foreignSearchFields(s) })),
    query,
    options,
  );
}
