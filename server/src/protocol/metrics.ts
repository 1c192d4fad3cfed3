/**
 * One line of a run's `metrics.jsonl` (append-only): a training step's metrics as Verl's file
 * logger wrote them (copied by `server/src/trainer/metricsTail.ts`, one source file per attempt
 * because Verl truncates its file on resume), or one training episode's figures from the
 * environment service. The run's metrics page and `gp runs show --metrics` read these lines.
 */
import { z } from 'zod';
import { withOldNames } from './oldNames.js';

export const verlMetricsLineSchema = z.object({
  source: z.literal('verl'),
  ts: z.string(),
  /** 1 for the first launch of the run, 2 after one resume, and so on. */
  attempt: z.number().int().min(1),
  step: z.number().int(),
  /** Verl's keys (`critic/score/mean`, `response_length/mean`, `timing_s/step`, …) and their values. */
  data: z.record(z.string(), z.number()),
});

export const envMetricsLineSchema = z.object({
  source: z.literal('env'),
  ts: z.string(),
  episode_id: z.string(),
  task_id: z.string(),
  /** The episode's return, named as in its trajectory's end line. */
  total_reward: z.number(),
  resolved: z.boolean(),
  steps: z.number().int(),
  /** Time the episode took in the service, sandbox start to close. */
  env_ms: z.number(),
  /** Replies the model sent in the episode (absent in lines written before it was recorded). */
  replies: z.number().int().min(0).optional(),
  /** Of those, the replies the action protocol could not parse. */
  parse_failures: z.number().int().min(0).optional(),
  /** Signals of suspected reward hacking its submit recorded (env/hackSignals.ts); absent when none. */
  suspected_hacks: z.number().int().min(1).optional(),
  /** Set when its last test run was not gradable because the runner witness saw the runner rewritten (testing/witnessRecords.ts); masked in training. */
  runner_tampered: z.literal(true).optional(),
  /** Why it reached no outcome (protocol/noOutcome.ts): masked in the update, left out of its GRPO group. Absent when it reached one. */
  no_outcome: z.string().optional(),
});

/**
 * The key under which a training step's line carries how many of the step's episodes (those that
 * ended after the previous step's line and by this one's) submitted a patch with suspected reward
 * hacking. It is ours, not Verl's: `gp train` adds it to Verl's line as it copies it.
 */
export const suspectedHacksKey = 'gp/suspected_hacks';

/**
 * The key under which a training step's line carries how many of the step's episodes ended not
 * gradable because their runner was tampered with (the `runner-tampered` verdict): masked in the
 * update, so only this count shows that the policy tried. Ours, added by `gp train` like the one above.
 */
export const runnerTamperedKey = 'gp/runner_tampered';

/**
 * The key under which a training step's line carries how many of the step's episodes reached no
 * outcome (protocol/noOutcome.ts): masked in the update and, under GRPO over real outcomes, left
 * out of their group's mean and standard deviation. Ours, added by `gp train` like the ones above.
 */
export const noOutcomeKey = 'gp/no_outcome';

/** An environment line's `total_reward` was `return` in runs written before issue 38 (a Verl line has neither key at its top). */
export const metricsLineSchema = withOldNames({ return: 'total_reward' }, z.discriminatedUnion('source', [verlMetricsLineSchema, envMetricsLineSchema]));
export type MetricsLine = z.infer<typeof metricsLineSchema>;
export type VerlMetricsLine = z.infer<typeof verlMetricsLineSchema>;
export type EnvMetricsLine = z.infer<typeof envMetricsLineSchema>;

/** Verl's file-logger line: `{"step": n, "data": {...}}` (docs/trainer-bridge.md#metrics). */
export const verlFileLoggerLineSchema = z.object({ step: z.number().int(), data: z.record(z.string(), z.unknown()) });

/**
 * One line of a training run's `step_samples.jsonl` (append-only): per training step, a sample of
 * the episodes that ended since the step before, spread over their returns (the best and the
 * worst always in it), each with a link to its trajectory. Long runs have thousands of episodes a
 * step; this is the table a person reads to see what the policy does at that step.
 */
export const stepSamplesLineSchema = z.object({
  ts: z.string(),
  attempt: z.number().int().min(1),
  step: z.number().int(),
  /** Episodes that ended in the step, of which `episodes` is the sample. */
  total: z.number().int().min(0),
  episodes: z.array(
    // `total_reward` was `return` in runs written before issue 38.
    withOldNames(
      { return: 'total_reward' },
      z.object({
        episode_id: z.string(),
        task_id: z.string(),
        total_reward: z.number(),
        resolved: z.boolean(),
        steps: z.number().int(),
        termination_reason: z.string(),
        /** Signals of suspected reward hacking its submit recorded (env/hackSignals.ts); absent when none. */
        suspected_hacks: z.number().int().min(1).optional(),
        /** Set when it ended not gradable because its runner was tampered with (masked in the update). */
        runner_tampered: z.literal(true).optional(),
        /** Why it reached no outcome (protocol/noOutcome.ts): masked and left out of its group. Absent when it reached one. */
        no_outcome: z.string().optional(),
        /** Relative to the run folder. */
        trajectory: z.string(),
      }),
    ),
  ),
});
export type StepSamplesLine = z.infer<typeof stepSamplesLineSchema>;
