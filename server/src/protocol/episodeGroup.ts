/**
 * The group view's request (extension → server) and its page's messages (extension → page): every
 * rollout of one task side by side, a GRPO group of a training step or any set of episodes of one
 * task in a run, each with its reward and advantage, their steps aligned on a reference rollout
 * (`server/src/groups/groupAlign.ts`) and the first row where they diverge marked. The page's own
 * messages are in `groupWebview.ts` (zod/mini).
 */
import { z } from 'zod';
import { stepRowSchema } from './episodeView.js';
import { failedMemberRules } from './noOutcome.js';
import { stepTextsSchema } from './stepTexts.js';

/** Which episodes: a training step's group of one task, the group of one episode, or every episode of a task. */
export const groupSelectionSchema = z.discriminatedUnion('kind', [
  /** A training step's GRPO group; `step: null` takes the latest step, `taskId: null` its first group. */
  z.object({ kind: z.literal('step'), step: z.number().int().min(0).nullable(), taskId: z.string().nullable(), groupId: z.string().nullable() }),
  /** The group of this episode: its GRPO group in a training run, every episode of its task otherwise. */
  z.object({ kind: z.literal('episode'), episodeId: z.string() }),
  /** Every episode of the task in the run. */
  z.object({ kind: z.literal('task'), taskId: z.string() }),
]);
export type GroupSelection = z.infer<typeof groupSelectionSchema>;

export const episodeGroupRequest = 'graphPlanner/episode/group';
export const episodeGroupParamsSchema = z.object({ run: z.string(), selection: groupSelectionSchema });
export type EpisodeGroupParams = z.infer<typeof episodeGroupParamsSchema>;

/** One rollout: a column of the view. */
export const groupColumnSchema = z.object({
  /** Absolute path of its trajectory. */
  file: z.string(),
  episodeId: z.string(),
  /** Its place in the GRPO group (`group_member`); null outside training. */
  groupMember: z.number().int().nullable(),
  state: z.enum(['running', 'resolved', 'unresolved', 'error', 'interrupted']),
  /** Its return, as the trainer was given it; null while it runs. */
  totalReward: z.number().nullable(),
  /** Its GRPO advantage within the group; null until every member has a reward. */
  advantage: z.number().nullable(),
  /**
   * Why it reached no outcome (`host-lost`, `not-gradable`, `interrupted`, …: protocol/noOutcome.ts);
   * null when it reached one or still runs. Such a member was masked in the update.
   */
  noOutcome: z.string().nullable(),
  /** It counts in the group's mean and standard deviation (false: left out, or its group dropped). */
  counted: z.boolean(),
  steps: z.number().int(),
  terminationReason: z.string().nullable(),
  /** What is wrong with its trajectory (cut short, unreadable lines); null when nothing. */
  problem: z.string().nullable(),
});
export type GroupColumn = z.infer<typeof groupColumnSchema>;

/** One column's step on an aligned row; null where that rollout has no step on the row. */
export const groupCellSchema = z.object({
  row: stepRowSchema,
  texts: stepTextsSchema,
  /** It did something else than the reference rollout on this row. */
  differs: z.boolean(),
});
export type GroupCell = z.infer<typeof groupCellSchema>;

export const groupRowSchema = z.object({
  cells: z.array(groupCellSchema.nullable()),
  /** Every rollout took this step and did the same thing in it. */
  same: z.boolean(),
});
export type GroupRow = z.infer<typeof groupRowSchema>;

/** How the advantages were computed, said on the page (docs/upstream-contracts.md#grpo-advantage). */
export const groupAdvantageSchema = z.object({
  /** The run's advantage estimator as Verl ran it (`grpo_real_outcomes` for `training.adv_estimator: grpo` since issue 39). */
  estimator: z.string(),
  /** What GRPO over real outcomes did with members that reached no outcome; null under Verl's plain GRPO, which counts them as reward 0. */
  failedMembers: z.enum(failedMemberRules).nullable(),
  /** Divided by the group's standard deviation (Verl's `algorithm.norm_adv_by_std_in_grpo`). */
  normByStd: z.boolean(),
  epsilon: z.number(),
  /** Over the members that count; null while one runs, or when none counts (the group contributes nothing). */
  mean: z.number().nullable(),
  std: z.number().nullable(),
  /** Something a reader must know about these figures (a running member, another estimator); null when nothing. */
  note: z.string().nullable(),
});

/** Another group the page can switch to: one of the step's groups, or a task of the run. */
export const groupChoiceSchema = z.object({
  groupId: z.string().nullable(),
  taskId: z.string(),
  size: z.number().int(),
  meanReward: z.number().nullable(),
});
export type GroupChoice = z.infer<typeof groupChoiceSchema>;

export const episodeGroupResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    run: z.object({ dir: z.string(), name: z.string() }),
    /** The group shown. */
    taskId: z.string(),
    groupId: z.string().nullable(),
    /** The training step; null for a set of episodes that is not one step's group. */
    step: z.number().int().nullable(),
    /** The training steps of the run that have groups, ascending (empty outside training). */
    steps: z.array(z.number().int()),
    /** The groups of the same step (or the run's tasks), the one shown among them. */
    choices: z.array(groupChoiceSchema),
    advantage: groupAdvantageSchema,
    /** Which column the others are aligned to. */
    reference: z.number().int(),
    columns: z.array(groupColumnSchema),
    rows: z.array(groupRowSchema),
    /** The first aligned row where the rollouts do not all do the same thing; null when they never differ. */
    divergence: z.number().int().nullable(),
    /** Members of the group beyond the columns shown (their rewards still count in the advantage). */
    leftOut: z.number().int(),
  }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type EpisodeGroupResult = z.infer<typeof episodeGroupResultSchema>;

/** Extension → group page. */
export const groupHostMessageSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('group'), group: episodeGroupResultSchema })]);
export type GroupHostMessage = z.infer<typeof groupHostMessageSchema>;
