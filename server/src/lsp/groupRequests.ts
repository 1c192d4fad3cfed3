/**
 * The group view's request (declared in `protocol/episodeGroup.ts`): the rollouts of a training
 * step's GRPO group, or of any set of episodes of one task in a run, side by side. The run's
 * episodes are indexed from its `events.jsonl`, read incrementally and kept for the runs asked
 * about last; the advantage follows the estimator settings of the run's resolved config.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { verlOverrideLeaves } from '../config/index.js';
import { episodeGroupParamsSchema, episodeGroupRequest, type EpisodeGroupResult } from '../protocol/episodeGroup.js';
import { failedMemberRules, realOutcomeEstimator } from '../protocol/noOutcome.js';
import { buildGroupView, resolveGroup, RunEpisodeIndex, type AdvantageSettings } from '../groups/index.js';
import { runLayout } from '../runs/index.js';
import { errorMessage } from '../util/errors.js';
import { isRecord } from '../util/isRecord.js';
import type { ServerContext } from './context.js';

/** Runs whose index is kept; asking about another drops the one asked about least recently. */
const indexesKept = 4;

export function registerGroupRequests(server: ServerContext): void {
  const indexes = new Map<string, RunEpisodeIndex>();
  const indexOf = (dir: string): RunEpisodeIndex => {
    const kept = indexes.get(dir) ?? new RunEpisodeIndex(dir);
    indexes.delete(dir);
    indexes.set(dir, kept);
    for (const oldest of indexes.keys()) {
      if (indexes.size <= indexesKept) break;
      indexes.delete(oldest);
    }
    return kept;
  };
  server.connection.onRequest(episodeGroupRequest, async (raw: unknown): Promise<EpisodeGroupResult> => {
    const { run, selection } = episodeGroupParamsSchema.parse(raw);
    try {
      const index = indexOf(run);
      const problems = await index.refresh();
      if (problems.length > 0)
        server.connection.console.warn(
          `Group view: ${problems.length} lines of ${runLayout(run).events} are not events and were left out (${problems.slice(0, 2).join('; ')}).`,
        );
      const group = resolveGroup(index.all(), selection);
      if (typeof group === 'string') return { ok: false, message: group };
      return await buildGroupView(run, group, await advantageSettings(run));
    } catch (error) {
      return { ok: false, message: `The group cannot be shown: ${errorMessage(error)}` };
    }
  });
}

/**
 * The run's advantage estimator, `norm_adv_by_std_in_grpo` and rule for members without an
 * outcome, from its resolved config: `training.adv_estimator: grpo` ran as GRPO over real outcomes
 * with `training.failed_members`, unless `verl_overrides` sets Verl's keys itself; a run whose
 * config has no `failed_members` predates it and ran Verl's plain GRPO. Verl's defaults under
 * `gp train` when the config cannot be read.
 */
export async function advantageSettings(run: string): Promise<AdvantageSettings> {
  let config: unknown;
  try {
    config = parse(await readFile(runLayout(run).resolvedConfig, 'utf8'));
  } catch (error) {
    return {
      estimator: realOutcomeEstimator,
      normByStd: true,
      failedMembers: 'exclude',
      assumed: `The run’s resolved_config.yaml cannot be read (${errorMessage(error)}); gp train’s defaults are assumed.`,
    };
  }
  const training = isRecord(config) && isRecord(config['training']) ? config['training'] : {};
  const leaves = verlOverrideLeaves(isRecord(config) ? config['verl_overrides'] : undefined);
  const override = (key: string): unknown => leaves.find((l) => l.key === key)?.value;
  const configured = training['adv_estimator'] ?? 'grpo';
  const rule = override('algorithm.failed_members') ?? training['failed_members'];
  const known = failedMemberRules.find((r) => r === rule);
  const estimator = override('algorithm.adv_estimator') ?? (configured === 'grpo' && known !== undefined ? realOutcomeEstimator : configured);
  const norm = override('algorithm.norm_adv_by_std_in_grpo');
  return {
    estimator: typeof estimator === 'string' ? estimator : 'grpo',
    normByStd: norm !== false && norm !== 'false',
    failedMembers: estimator === realOutcomeEstimator ? (known ?? 'exclude') : null,
    assumed: null,
  };
}
