/**
 * The Compare picker's items: every trajectory in the workspace under its episode's one name
 * (`protocol/episodeName.ts`), with its outcome, sorted by task and attempt, the other episodes of
 * the task being compared first. No `vscode` import, so `test/unit/episodePicker.test.ts` checks
 * it directly; `episodeCompare.ts` shows the items.
 */
import { basename } from 'node:path';
import { compareEpisodes, episodeName, type EpisodeRef } from '../../server/src/protocol/episodeName.js';
import type { EpisodeSummary } from '../../server/src/protocol/runsView.js';
import { describeEpisode, episodeStateIcons, runLabel } from './views/runsText.js';

/** A trajectory file found in the workspace, with its run's record of it when the server has one. */
export interface FoundTrajectory {
  readonly path: string;
  /** The run folder's name. */
  readonly run: string;
  /** Its episode as the run's events tell it; undefined for a file no run the server knows lists. */
  readonly episode: EpisodeSummary | undefined;
}

export interface PickerEntry {
  readonly path: string;
  /** `$(pass-filled) sample-calc-add#2`: the outcome's icon and the episode's name. */
  readonly label: string;
  /** `resolved · reward 1.00 · 4 steps · sample 11:23:43`: the outcome first, then the run by its label in the Runs view. */
  readonly description: string;
}

/**
 * A file no run lists is named by its stem, which is the episode's name for every run this
 * version writes; its task is the stem without an attempt's `#n`, or an older version's `_n-<hash>`.
 */
function refOf(found: FoundTrajectory): EpisodeRef {
  if (found.episode !== undefined) return found.episode;
  const stem = basename(found.path, '.jsonl');
  return { episodeId: stem, taskId: stem.replace(/#\d+$/, '').replace(/_\d+-[0-9a-f]{8}$/, '') };
}

/** The run is named by its label in the Runs view (`attempts 11:23:43`). */
function entryOf(found: FoundTrajectory, now: number): PickerEntry {
  const ep = found.episode;
  const run = runLabel(found.run, now);
  if (ep === undefined) return { path: found.path, label: `$(file) ${episodeName(refOf(found))}`, description: run };
  return {
    path: found.path,
    label: `$(${episodeStateIcons[ep.state].id.replace('~spin', '')}) ${episodeName(ep)}`,
    description: `${describeEpisode(ep)} · ${run}`,
  };
}

/** Newer runs first among episodes of one name; run names end in their start time. */
function byTaskThenRun(a: FoundTrajectory, b: FoundTrajectory): number {
  return compareEpisodes(refOf(a), refOf(b)) || b.run.localeCompare(a.run) || a.path.localeCompare(b.path);
}

/**
 * The picker's two sections: the other episodes of `other`'s task (none when picking the first
 * episode), then every other trajectory; each sorted by task, then attempt, then newest run.
 */
export function pickerEntries(
  found: readonly FoundTrajectory[],
  other: FoundTrajectory | undefined,
  now: number,
): { readonly sameTask: PickerEntry[]; readonly rest: PickerEntry[] } {
  const candidates = found.filter((f) => f.path !== other?.path).sort(byTaskThenRun);
  const task = other === undefined ? undefined : refOf(other).taskId;
  const same = candidates.filter((f) => task !== undefined && refOf(f).taskId === task);
  const rest = candidates.filter((f) => !same.includes(f));
  return { sameTask: same.map((f) => entryOf(f, now)), rest: rest.map((f) => entryOf(f, now)) };
}
