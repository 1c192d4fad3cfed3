/**
 * The group view's answer: the rollouts of one resolved group (`episodeGroups.ts`) read from their
 * trajectories, each with its reward and GRPO advantage (`groupAdvantage.ts`), their steps aligned
 * on the first rollout (`groupAlign.ts`) and the first row where they diverge. Trajectories are
 * read afresh and not kept: a group is a snapshot, and some of its episodes may still be running.
 */
import { basename } from 'node:path';
import type { EpisodeGroupResult, GroupColumn } from '../protocol/episodeGroup.js';
import { realOutcomeEstimator, type FailedMemberRule } from '../protocol/noOutcome.js';
import { errorMessage } from '../util/errors.js';
import { EpisodeFiles, type EpisodeModel, stepRow, stepTexts } from '../episodes/index.js';
import type { ResolvedGroup } from './episodeGroups.js';
import { grpoAdvantages, grpoEpsilon, realOutcomeAdvantages, type GroupAdvantages } from './groupAdvantage.js';
import { alignGroup, firstDivergence } from './groupAlign.js';
import { runLayout } from '../runs/index.js';

/** Columns a view shows; a larger group's other members still count in the advantage. */
export const maxGroupColumns = 32;

/** How the run's trainer computed advantages, from its resolved config. */
export interface AdvantageSettings {
  /** `algorithm.adv_estimator` as Verl ran it (`grpo_real_outcomes`, `grpo`, `rloo`, …). */
  readonly estimator: string;
  readonly normByStd: boolean;
  /** The rule for members without an outcome under `grpo_real_outcomes`; null under any other estimator. */
  readonly failedMembers: FailedMemberRule | null;
  /** Why the settings are assumed rather than read (no resolved config); null when read. */
  readonly assumed: string | null;
}

/** The reference every other column is aligned to: the first rollout of the group. */
const reference = 0;

export async function buildGroupView(dir: string, group: ResolvedGroup, settings: AdvantageSettings): Promise<EpisodeGroupResult> {
  const layout = runLayout(dir);
  const shown = group.members.slice(0, maxGroupColumns);
  const files = new EpisodeFiles();
  const loaded = await Promise.all(
    shown.map(async (ep) => {
      const file = layout.trajectory(ep.episodeId);
      try {
        return { ep, file, model: (await files.load(file)).model, problem: null };
      } catch (error) {
        return { ep, file, model: undefined, problem: `its trajectory cannot be read: ${errorMessage(error)}` };
      }
    }),
  );
  const empty: EpisodeModel = { start: undefined, steps: [], end: undefined, cutShort: true, torn: false, problems: [] };
  const models = loaded.map((l) => l.model ?? empty);
  // The reward Verl was given: the episode's return, from its end event or, if the event has not
  // been read yet, its trajectory's end line; a training member without an outcome was given 0.
  const failed = group.members.map((m) => m.noOutcome);
  const rewards = group.members.map((m, i) => (group.isTrainingGroup && failed[i] !== null ? 0 : (m.totalReward ?? models[i]?.end?.total_reward ?? null)));
  // Members still running (no reward, no failure yet) hold every advantage back.
  const running = rewards.filter((r, i) => r === null && failed[i] === null).length;
  const figures =
    running > 0
      ? undefined
      : groupFigures(
          rewards.map((r) => r ?? 0),
          failed,
          settings,
        );
  const rows = alignGroup(models, reference);
  const divergence = firstDivergence(rows);
  const columns: GroupColumn[] = loaded.map(({ ep, file, model, problem }, i) => ({
    file,
    episodeId: ep.episodeId,
    groupMember: ep.group?.group_member ?? null,
    state: ep.state,
    totalReward: rewards[i] ?? null,
    advantage: figures?.advantages[i] ?? null,
    noOutcome: failed[i] ?? null,
    counted: figures?.counted[i] ?? failed[i] === null,
    steps: model?.steps.length ?? 0,
    terminationReason: model?.end?.termination_reason ?? null,
    problem: problem ?? (model === undefined ? null : modelProblem(model, ep.state)),
  }));
  return {
    ok: true,
    run: { dir, name: basename(dir) },
    taskId: group.taskId,
    groupId: group.groupId,
    step: group.step,
    steps: group.steps,
    choices: group.choices,
    advantage: {
      estimator: settings.estimator,
      normByStd: settings.normByStd,
      failedMembers: settings.failedMembers,
      epsilon: grpoEpsilon,
      mean: figures?.mean ?? null,
      std: figures?.std ?? null,
      note: advantageNote(group, settings, running, failed),
    },
    reference,
    columns,
    rows: rows.map((r) => ({
      cells: r.cells.map((c, i) => (c === undefined ? null : { row: stepRow(c), texts: stepTexts(c), differs: r.differs[i] ?? false })),
      same: r.same,
    })),
    divergence: divergence ?? null,
    leftOut: group.members.length - shown.length,
  };
}

function modelProblem(model: EpisodeModel, state: GroupColumn['state']): string | null {
  const parts = [
    ...(model.cutShort && state !== 'running' ? ['its trajectory has no end line'] : []),
    ...(model.torn ? ['its last line is torn'] : []),
    ...model.problems.slice(0, 2),
  ];
  return parts.length === 0 ? null : parts.join('; ');
}

/**
 * The group's advantages as the run's estimator computed them: GRPO over real outcomes with its
 * rule, or Verl's plain GRPO (which counts a member without an outcome as reward 0). Any other
 * estimator is shown as plain GRPO, and the note says so.
 */
function groupFigures(rewards: readonly number[], failed: readonly (string | null)[], settings: AdvantageSettings): GroupAdvantages & { counted: boolean[] } {
  if (settings.failedMembers !== null)
    return realOutcomeAdvantages(
      rewards,
      failed.map((f) => f === null),
      { normByStd: settings.normByStd, rule: settings.failedMembers },
    );
  return { ...grpoAdvantages(rewards, { normByStd: settings.normByStd }), counted: rewards.map(() => true) };
}

function advantageNote(group: ResolvedGroup, settings: AdvantageSettings, running: number, failed: readonly (string | null)[]): string | null {
  const reasons = failed.filter((f): f is string => f !== null);
  const n = group.members.length;
  const real = n - reasons.length - running;
  const why = `(${[...new Set(reasons)].join(', ')})`;
  const noOutcome =
    reasons.length === 1 ? `1 of the ${n} rollouts reached no outcome ${why}` : `${reasons.length} of the ${n} rollouts reached no outcome ${why}`;
  const failures =
    reasons.length === 0 || running > 0
      ? false
      : settings.failedMembers === 'drop_group'
        ? `${noOutcome} and failed_members is drop_group: the whole group contributes nothing, every advantage is 0.`
        : settings.failedMembers === 'exclude'
          ? real < 2
            ? `${noOutcome}; with fewer than two outcomes left the group contributes nothing, every advantage is 0.`
            : `${noOutcome}: ${reasons.length === 1 ? 'it is' : 'they are'} left out of the group’s mean and standard deviation with advantage 0 (failed_members: exclude).`
          : `${noOutcome}. This run trained with Verl’s plain ${settings.estimator}, which counted ${reasons.length === 1 ? 'it' : 'them'} as reward 0 in the group’s mean and standard deviation, so the other members’ advantages are shifted by ${reasons.length === 1 ? 'it' : 'them'}.`;
  const notes = [
    running > 0 && `${running} of the ${n} rollouts ${running === 1 ? 'has' : 'have'} no reward yet, so no advantage is shown until every one has ended.`,
    failures,
    !group.isTrainingGroup && 'These episodes are not one GRPO group of a training step: the advantage is what GRPO would give them as one group.',
    settings.estimator !== 'grpo' &&
      settings.estimator !== realOutcomeEstimator &&
      `This run trained with the ${settings.estimator} estimator; the advantage shown is GRPO's, not the one Verl used.`,
    !settings.normByStd && 'norm_adv_by_std_in_grpo is off in this run’s config: the advantage is r − mean, not divided by the standard deviation.',
    settings.assumed,
  ].filter((n): n is string => typeof n === 'string' && n !== '');
  return notes.length === 0 ? null : notes.join(' ');
}
