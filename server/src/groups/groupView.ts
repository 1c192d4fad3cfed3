/**
 * The group view's answer: the rollouts of one resolved group (`episodeGroups.ts`) read from their
 * trajectories, each with its reward and GRPO advantage (`groupAdvantage.ts`), their steps aligned
 * on the first rollout (`groupAlign.ts`) and the first row where they diverge. Trajectories are
 * read afresh and not kept: a group is a snapshot, and some of its episodes may still be running.
 */
import { basename } from 'node:path';
import type { EpisodeGroupResult, GroupColumn } from '../protocol/episodeGroup.js';
import { errorMessage } from '../util/errors.js';
import { EpisodeFiles, type EpisodeModel, stepRow, stepTexts } from '../episodes/index.js';
import type { ResolvedGroup } from './episodeGroups.js';
import { grpoAdvantages, grpoEpsilon } from './groupAdvantage.js';
import { alignGroup, firstDivergence } from './groupAlign.js';
import { runLayout } from '../runs/index.js';

/** Columns a view shows; a larger group's other members still count in the advantage. */
export const maxGroupColumns = 32;

/** How the run's trainer computed advantages, from its resolved config. */
export interface AdvantageSettings {
  /** `algorithm.adv_estimator` as the run set it. */
  readonly estimator: string;
  readonly normByStd: boolean;
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
  // been read yet, its trajectory's end line.
  const rewards = group.members.map((m, i) => m.totalReward ?? models[i]?.end?.total_reward ?? null);
  const known = rewards.filter((r): r is number => r !== null);
  const complete = known.length === rewards.length;
  const figures = complete ? grpoAdvantages(known, { normByStd: settings.normByStd }) : undefined;
  const rows = alignGroup(models, reference);
  const divergence = firstDivergence(rows);
  const columns: GroupColumn[] = loaded.map(({ ep, file, model, problem }, i) => ({
    file,
    episodeId: ep.episodeId,
    groupMember: ep.group?.group_member ?? null,
    state: ep.state,
    totalReward: rewards[i] ?? null,
    advantage: figures?.advantages[i] ?? null,
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
      epsilon: grpoEpsilon,
      mean: figures?.mean ?? null,
      std: figures?.std ?? null,
      note: advantageNote(group, settings, rewards.length - known.length),
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

function advantageNote(group: ResolvedGroup, settings: AdvantageSettings, missing: number): string | null {
  const notes = [
    missing > 0 &&
      `${missing} of the ${group.members.length} rollouts ${missing === 1 ? 'has' : 'have'} no reward yet, so no advantage is shown until every one has ended.`,
    !group.isTrainingGroup && 'These episodes are not one GRPO group of a training step: the advantage is what GRPO would give them as one group.',
    settings.estimator !== 'grpo' && `This run trained with the ${settings.estimator} estimator; the advantage shown is GRPO's, not the one Verl used.`,
    !settings.normByStd && 'norm_adv_by_std_in_grpo is off in this run’s config: the advantage is r − mean, not divided by the standard deviation.',
    settings.assumed,
  ].filter((n): n is string => typeof n === 'string' && n !== '');
  return notes.length === 0 ? null : notes.join(' ');
}
