/**
 * Text search across an episode's steps, for the trajectory viewer's search box: every occurrence
 * in each step's raw reply, action, thought and observation text, in step order, with a short
 * preview around it, and the next or previous match from a selected step.
 */
import type { EpisodeModel } from './episodeModel.js';

export type SearchField = 'reply' | 'thought' | 'action' | 'observation';

export interface SearchMatch {
  readonly step: number;
  readonly field: SearchField;
  /** Character offset of the match in that field's text. */
  readonly offset: number;
  /** The match with up to 40 characters either side, on one line. */
  readonly preview: string;
}

export interface SearchOptions {
  readonly caseSensitive?: boolean;
  /** Stop after this many matches (a viewer shows the count as "N+"). */
  readonly limit?: number;
}

/** A step's searchable texts, by field. */
export interface SearchableStep {
  readonly step: number;
  readonly fields: readonly (readonly [SearchField, string | undefined])[];
}

export function searchEpisode(model: EpisodeModel, query: string, options: SearchOptions = {}): SearchMatch[] {
  return searchSteps(
    model.steps.map((view) => {
      const r = view.record;
      const { thought, ...params } = r.action ?? {};
      return {
        step: view.step,
        fields: [
          ['reply', r.response],
          ['thought', thought],
          ['action', r.action === undefined ? undefined : JSON.stringify(params)],
          ['observation', r.observation.text],
        ],
      };
    }),
    query,
    options,
  );
}

/** Every occurrence of `query` in the steps' fields, in step order; our episodes and other tools' share it. */
export function searchSteps(steps: Iterable<SearchableStep>, query: string, options: SearchOptions = {}): SearchMatch[] {
  if (query === '') return [];
  const limit = options.limit ?? 10_000;
  const needle = options.caseSensitive === true ? query : query.toLowerCase();
  const matches: SearchMatch[] = [];
  for (const { step, fields } of steps) {
    for (const [field, text] of fields) {
      if (text === undefined || text === '') continue;
      const hay = options.caseSensitive === true ? text : text.toLowerCase();
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) {
        matches.push({ step, field, offset: at, preview: preview(text, at, query.length) });
        if (matches.length >= limit) return matches;
      }
    }
  }
  return matches;
}

function preview(text: string, at: number, length: number): string {
  const from = Math.max(0, at - 40);
  const to = Math.min(text.length, at + length + 40);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}

/** The first match in a step after (or, going back, before) `step`, wrapping around; undefined when there is none. */
export function nextMatchStep(matches: readonly SearchMatch[], step: number, direction: 1 | -1): number | undefined {
  const steps = [...new Set(matches.map((m) => m.step))].sort((a, b) => a - b);
  if (steps.length === 0) return undefined;
  if (direction === 1) return steps.find((s) => s > step) ?? steps[0];
  return [...steps].reverse().find((s) => s < step) ?? steps.at(-1);
}
