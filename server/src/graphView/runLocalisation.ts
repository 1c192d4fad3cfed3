/**
 * Localisation recall over a run's episodes, for its metrics page: each trajectory under
 * `trajectories/` scored against its task's gold patch (`codeGraphView.ts`'s `localiseEpisode`),
 * grouped by training step when the run is a training run (its `step_samples.jsonl` names each
 * step's sampled episodes, and only those are grouped under a step), else one group for the run.
 * A trajectory that cannot be read is a problem with its name, never fatal.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EpisodeRecall, RunLocalisationResult } from '../protocol/codeGraphView.js';
import { stepSamplesLineSchema } from '../protocol/metrics.js';
import type { TrajectoryStart } from '../protocol/runs.js';
import { errorMessage } from '../util/errors.js';
import { localiseEpisode, type EpisodeGoldSource } from './codeGraphView.js';
import { buildEpisodeModel } from '../episodes/index.js';
import { parseJsonLines, runLayout, readTrajectory } from '../runs/index.js';
import { groupRecall } from './localisationRecall.js';

/** Most trajectories scored in one request; a larger run is scored on its most recent ones. */
export const maxScoredEpisodes = 2000;

/** The gold of a trajectory's task, as the caller finds it (launch/episodeGold.ts). */
export type GoldFinder = (trajectory: string, start: TrajectoryStart | undefined) => Promise<EpisodeGoldSource>;

/** Each sampled trajectory's training step, by its path relative to the run folder. */
async function stepsOfTrajectories(dir: string): Promise<Map<string, number>> {
  const steps = new Map<string, number>();
  let text: string;
  try {
    text = await readFile(runLayout(dir).stepSamples, 'utf8');
  } catch {
    return steps;
  }
  for (const line of parseJsonLines(text, stepSamplesLineSchema).records) for (const e of line.episodes) steps.set(e.trajectory, line.step);
  return steps;
}

export async function runLocalisation(dir: string, findGold: GoldFinder): Promise<RunLocalisationResult> {
  const layout = runLayout(dir);
  const problems: string[] = [];
  let names: string[];
  try {
    names = (await readdir(layout.trajectories)).filter((n) => n.endsWith('.jsonl')).sort();
  } catch {
    return { groups: [], episodes: 0, withoutGold: 0, problems: [`${layout.trajectories} cannot be read: the run has no trajectories yet.`] };
  }
  if (names.length > maxScoredEpisodes) {
    problems.push(`The run has ${names.length} trajectories; the ${maxScoredEpisodes} last by name are scored.`);
    names = names.slice(-maxScoredEpisodes);
  }
  const stepOf = await stepsOfTrajectories(dir);
  const training = stepOf.size > 0;
  const byStep = new Map<number | null, Array<EpisodeRecall | null>>();
  let withoutGold = 0;
  let episodes = 0;
  for (const name of names) {
    const path = join(layout.trajectories, name);
    const step = training ? stepOf.get(join('trajectories', name)) : null;
    if (step === undefined) continue;
    try {
      const read = await readTrajectory(path);
      if (read === undefined) continue;
      const model = buildEpisodeModel(read);
      const local = await localiseEpisode(path, model, await findGold(path, read.start));
      episodes++;
      if (local.recall === null) withoutGold++;
      const list = byStep.get(step) ?? [];
      list.push(local.recall);
      byStep.set(step, list);
    } catch (error) {
      problems.push(`${name}: ${errorMessage(error)}`);
    }
  }
  const groups = [...byStep.entries()].sort(([a], [b]) => (a ?? 0) - (b ?? 0)).map(([step, recalls]) => groupRecall(step, recalls));
  return { groups, episodes, withoutGold, problems };
}
