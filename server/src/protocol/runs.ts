/**
 * The run directory of ARCHITECTURE.md §3 as files: `status.json`, `events.jsonl`, one
 * `trajectories/<episode>.jsonl` per episode (appended step by step) and `report.json`. Rollouts
 * (`server/src/rollout/`) write them; the runs view, the trajectory webview and `gp eval` read them.
 * `npm run schemas` emits the trajectory line schema so other tools can check the files.
 */
import { z } from 'zod';
import { actionSchema, protocolErrorSchema } from './actions.js';
import { observationSchema, stepTimingsSchema, terminationReasonSchema } from './observation.js';
import { backendFallbackSchema } from './backendChoice.js';
import { openedBackendSchema } from './sandbox.js';
import { sandboxBackendNames, type OpenedBackendName } from './sandboxBackends.js';
import { testGradeSchema } from './testReport.js';
import { graphEdgeSchema } from './graph.js';
import { modelCallSchema, modelSummarySchema, modelUsageSchema } from './modelUsage.js';
import { withOldNames } from './oldNames.js';

export const trajectorySchemaVersion = 1;

/** Which sandbox host ran an episode: the host's id and the Ray node it runs on (issue 22). */
export const sandboxHostRefSchema = z.object({ id: z.string(), node: z.string() });
export type SandboxHostRef = z.infer<typeof sandboxHostRefSchema>;

/**
 * A training episode's GRPO group: its `group_id` (Verl's `uid` for the prompt the group answers),
 * and its `group_member`, how many episodes of the group the environment service created before
 * this one. Verl computes each episode's advantage against the other episodes of its group
 * (docs/upstream-contracts.md#grpo-advantage).
 */
const trainingGroupFields = z.object({ group_id: z.string(), group_member: z.number().int().min(0) });
/** `group_member` was `member` in runs written before issue 38. */
const trainingGroupOldNames = { member: 'group_member' } as const;
export const trainingGroupSchema = withOldNames(trainingGroupOldNames, trainingGroupFields);
export type TrainingGroup = z.infer<typeof trainingGroupSchema>;

/**
 * A training episode's group and the training step it belongs to, in its `episode-end` event. The
 * step is the one whose metrics line follows the episode's end (Verl logs a step after all its
 * rollouts ended), the rule `step_samples.jsonl` uses too; absent when it is not known (a resumed
 * attempt's episodes that ended before its first metrics line).
 */
export const trainingRefSchema = withOldNames(trainingGroupOldNames, trainingGroupFields.extend({ step: z.number().int().min(0).optional() }));
export type TrainingRef = z.infer<typeof trainingRefSchema>;

/** The first line of a trajectory: what is being attempted, by whom, under which limits. */
/**
 * Where a forked episode came from (`gp trajectory fork`, docs/trajectory-viewer.md#continue-from-here):
 * the parent's run folder, episode and trajectory file (absolute paths), and the step the fork
 * continued from live. Steps 1..step−1 of the fork are the parent's, replayed and checked.
 */
export const trajectoryForkSchema = z.object({
  /** The parent's run folder (absolute). */
  run: z.string(),
  episode_id: z.string(),
  /** The parent's trajectory file (absolute). */
  trajectory: z.string(),
  /** The first step the fork took live (1-based). */
  step: z.number().int().min(1),
});
export type TrajectoryFork = z.infer<typeof trajectoryForkSchema>;

export const trajectoryStartSchema = z.object({
  type: z.literal('start'),
  schema_version: z.literal(trajectorySchemaVersion),
  episode_id: z.string(),
  task_id: z.string(),
  agent: z.string(),
  backend: openedBackendSchema,
  /** Why `sandbox.backend: auto` ran this episode on the local backend; absent when it ran where asked. */
  backend_fallback: backendFallbackSchema.optional(),
  /** The task's Docker image, when it names one (the sandbox ran from it on the docker backend). */
  image: z.string().optional(),
  /** The sandbox host of a Ray cluster that ran the episode (docs/sandbox-hosts.md): its id and its Ray node. Absent for an episode run in the launching process. */
  sandbox_host: sandboxHostRefSchema.optional(),
  /** The GRPO group of a training episode (`gp train`); absent for rollouts and evaluations. */
  training: trainingGroupSchema.optional(),
  /** The parent of a forked episode; absent for an episode that ran from its start. */
  fork: trajectoryForkSchema.optional(),
  /**
   * The task file the task came from (absolute) and its line, so that a viewer can find what lies
   * beside it after the run (the gold patch of `gold_predictions_<split>.jsonl`, for the code-graph
   * view). Absent in trajectories written before it was recorded.
   */
  task_file: z.object({ path: z.string(), line: z.number().int().min(1) }).optional(),
  /** The effective step limit: min(task.max_steps, env.max_steps) (ARCHITECTURE.md §4.5). */
  max_steps: z.number().int().min(1),
  rewards: z.object({
    reward_scale: z.number(),
    failure_penalty: z.number(),
    step_penalty: z.number(),
    timeout_penalty: z.number(),
  }),
  started_at: z.string(),
  /** The observation after reset. */
  observation: observationSchema,
});

/** A token id: an index into the policy's vocabulary. */
const tokenIdSchema = z
  .number()
  .int('a token id is a whole number')
  .min(0, 'a token id is never negative')
  .max(2 ** 31 - 1, 'a token id is below 2^31');

/**
 * A turn's prompt told as a change to the turn before it: the previous turn's prompt followed by
 * its completion, cut to its first `kept` tokens, then `token_ids`. A chat's prompt grows by the
 * previous reply and the new observation each turn, so sending (and keeping) each whole prompt
 * grows with the square of the turns, this with the turns (docs/trainer-bridge.md#tokens).
 * `kept` is shorter than the previous context when the chat template rewrites the end of a turn
 * (Verl's continuous-token builders may drop tokens at the junction).
 */
export const promptDeltaSchema = z.object({
  kept: z.number().int().min(0),
  /** The tokens after the kept ones: the template's end of the previous turn, the observation, the next generation prompt. */
  token_ids: z.array(tokenIdSchema).max(2_000_000),
});
export type PromptDelta = z.infer<typeof promptDeltaSchema>;

/**
 * The policy's tokens behind a training step's reply, as the trainer's rollout server sampled them
 * and the agent loop sent them with the reply (docs/field-formats.md: ATIF's per-step
 * `prompt_token_ids`, `completion_token_ids` and `logprobs`). Recorded only for training episodes;
 * a rollout or evaluation asks an OpenAI-compatible server that returns text. The prompt is either
 * whole or told as a change to the step before (`prompt_delta`); `episodes/promptTokens.ts` gives every
 * step's whole prompt back.
 */
export const stepTokensSchema = z
  .object({
    /** The whole prompt of this turn, as token ids (the first turn's; absent when the client left it out or sent `prompt_delta`). */
    prompt_token_ids: z.array(tokenIdSchema).max(2_000_000).optional(),
    /** This turn's prompt as a change to the previous turn's prompt and completion. */
    prompt_delta: promptDeltaSchema.optional(),
    /** The reply's tokens, as sampled. */
    completion_token_ids: z.array(tokenIdSchema).max(1_000_000),
    /** One log-probability per completion token, in order; absent when the rollout server returned none. */
    logprobs: z.array(z.number()).max(1_000_000).optional(),
  })
  .refine((t) => t.logprobs === undefined || t.logprobs.length === t.completion_token_ids.length, {
    path: ['logprobs'],
    message: 'needs one log-probability per completion token',
  })
  .refine((t) => t.prompt_token_ids === undefined || t.prompt_delta === undefined, {
    path: ['prompt_delta'],
    message: 'a step sends its prompt whole (prompt_token_ids) or as a change (prompt_delta), not both',
  });
export type StepTokens = z.infer<typeof stepTokensSchema>;

/** One step: the action (or the reply that failed to parse), what came back, the reward. */
export const trajectoryStepSchema = z.object({
  type: z.literal('step'),
  step: z.number().int().min(1),
  /** The action executed; absent when the reply could not be parsed. */
  action: actionSchema.optional(),
  /** The model's raw reply, for model agents. */
  response: z.string().optional(),
  protocol_error: protocolErrorSchema.optional(),
  /** Set when the model agent handed this step to the rule agent, with why. */
  fallback_reason: z.string().optional(),
  /** The model call behind this step (model agents): tokens, generation time, attempts, why it stopped. */
  model: modelCallSchema.optional(),
  /** The policy's tokens behind the reply (training episodes whose agent loop sent them). */
  tokens: stepTokensSchema.optional(),
  observation: observationSchema,
  reward: z.number(),
  done: z.boolean(),
  termination_reason: terminationReasonSchema.optional(),
  timings: stepTimingsSchema,
  /**
   * A forked episode's step taken from its parent: the recorded action executed again and its
   * outcome checked against the recording (the observation here is the one the fork's sandbox gave).
   */
  replayed: z.literal(true).optional(),
});

/**
 * An episode that reached no outcome because the machinery under it failed: the Docker daemon went
 * away, the sandbox was lost, the disk filled up, memory ran out, the model server stopped
 * answering, or the tests could not be graded (they never ran, or their log contradicts the test
 * command: docs/upstream-contracts.md#swe-bench-grading). It says nothing about the task or the agent, so it is never counted as the task's
 * result: a resume runs the episode again, the resolved rate leaves it out and reports it beside
 * the rate, and the command exits non-zero.
 */
export const infrastructureCodes = [
  'daemon-lost',
  'sandbox-lost',
  'disk-full',
  'out-of-memory',
  'io',
  'model-unreachable',
  'not-gradable',
  'host-lost',
] as const;
export const infrastructureFailureSchema = z.object({
  code: z.enum(infrastructureCodes),
  /** The failure as the failing part reported it. */
  cause: z.string(),
  /** For `not-gradable`: the strictness rule of the grade, when one decided it (`runner-tampered`: the runner witness saw the runner change). */
  rule: z.string().optional(),
});
export type InfrastructureFailure = z.infer<typeof infrastructureFailureSchema>;

/** The last line: how the episode ended. A trajectory without it was cut short. */
export const trajectoryEndSchema = z.object({
  type: z.literal('end'),
  episode_id: z.string(),
  task_id: z.string(),
  resolved: z.boolean(),
  steps: z.number().int().min(0),
  total_reward: z.number(),
  termination_reason: terminationReasonSchema,
  duration_ms: z.number().min(0),
  /** The repository's diff against its base commit when the episode ended. */
  patch: z.string(),
  grade: testGradeSchema.optional(),
  /** What went wrong, for `error` and `interrupted`. */
  error: z.string().optional(),
  /** Set when the episode ended with `error` because the infrastructure failed; a resume runs it again. */
  infrastructure: infrastructureFailureSchema.optional(),
  /** A model agent's calls and how its replies fared (absent for the rule agent). */
  model: modelUsageSchema.optional(),
  /**
   * A fork whose replay of its parent came out unlike the recording (step 0 is the reset): where,
   * and both sides. The episode ended there with `error`; it continued nothing.
   */
  fork_divergence: z.object({ step: z.number().int().min(0), where: z.string(), recorded: z.string(), replayed: z.string() }).optional(),
  /**
   * How many signals of suspected reward hacking the submit that ended the episode recorded
   * (its `suspected_hacks`, env/hackSignals.ts); absent when there were none or no submit.
   */
  suspected_hacks: z.number().int().min(1).optional(),
  /**
   * The code graph's edges at the nodes the episode's observations named (either end, any kind), so
   * that a viewer can count hops to the gold after the sandbox is gone (the code-graph view). At
   * most `maxRecordedGraphEdges`; absent in trajectories written before it was recorded.
   */
  graph_edges: z.array(graphEdgeSchema).max(20_000).optional(),
  /** Set when the episode's nodes had more edges than were recorded. */
  graph_edges_truncated: z.literal(true).optional(),
});

/** Most graph edges an end line records (about 80 bytes each). */
export const maxRecordedGraphEdges = 4000;

export const trajectoryLineSchema = z.discriminatedUnion('type', [trajectoryStartSchema, trajectoryStepSchema, trajectoryEndSchema]);
export type TrajectoryStart = z.infer<typeof trajectoryStartSchema>;
export type TrajectoryStep = z.infer<typeof trajectoryStepSchema>;
export type TrajectoryEnd = z.infer<typeof trajectoryEndSchema>;
export type TrajectoryLine = z.infer<typeof trajectoryLineSchema>;

/**
 * The backends a run's episodes ran on: how many on each, and every reason `auto` fell back to the
 * unisolated local backend, with how many episodes it concerned. In `status.json` and `report.json`.
 */
const episodeCount = z.number().int().min(0);
// The cast names the keys `Object.fromEntries` builds, one per backend, so the counts stay typed by backend.
const episodesByBackend = Object.fromEntries(sandboxBackendNames.map((name) => [name, episodeCount])) as Record<OpenedBackendName, typeof episodeCount>;
export const backendSummarySchema = z.object({
  episodes: z.object(episodesByBackend),
  fallbacks: z.array(backendFallbackSchema.extend({ episodes: z.number().int().min(1) })),
});
export type BackendSummary = z.infer<typeof backendSummarySchema>;

/** `status.json`: the run's state, rewritten atomically as it changes. */
export const runStatusSchema = z.object({
  state: z.enum(['running', 'finished', 'failed', 'interrupted']),
  command: z.string(),
  pid: z.number().int(),
  host: z.string(),
  started_at: z.string(),
  ended_at: z.string().optional(),
  exit_reason: z.string().optional(),
  episodes: z.object({
    total: z.number().int().min(0),
    finished: z.number().int().min(0),
    resolved: z.number().int().min(0),
    errored: z.number().int().min(0),
    /** Episodes the infrastructure failed (not in `finished`; a resume runs them again). */
    infrastructure: z.number().int().min(0).optional(),
  }),
  /** The backends episodes ran on so far (absent in runs written before it was recorded). */
  backend: backendSummarySchema.optional(),
  /** A model agent's figures over the episodes finished so far (absent for the rule agent). */
  model: modelSummarySchema.optional(),
});
export type RunStatus = z.infer<typeof runStatusSchema>;

/** One line of `events.jsonl` (append-only). */
export const runEventSchema = z.discriminatedUnion('kind', [
  z.object({
    ts: z.string(),
    kind: z.literal('run-start'),
    command: z.string(),
    total: z.number().int(),
    resumed: z.number().int(),
    /** A verification's dataset file (absolute), so a reader knows which file its verdicts are about before `verification.json` exists. */
    dataset: z.string().optional(),
  }),
  z.object({
    ts: z.string(),
    kind: z.literal('episode-start'),
    episode_id: z.string(),
    task_id: z.string(),
    sandbox_host: sandboxHostRefSchema.optional(),
    /** A training episode's GRPO group (`gp train`); its step is known when it ends. */
    training: trainingGroupSchema.optional(),
  }),
  z.object({
    ts: z.string(),
    kind: z.literal('episode-end'),
    episode_id: z.string(),
    task_id: z.string(),
    resolved: z.boolean(),
    steps: z.number().int(),
    total_reward: z.number(),
    termination_reason: terminationReasonSchema,
    duration_ms: z.number(),
    infrastructure: infrastructureFailureSchema.optional(),
    /** A training episode's group and training step (`gp train`); absent for rollouts and evaluations. */
    training: trainingRefSchema.optional(),
  }),
  z.object({ ts: z.string(), kind: z.literal('warning'), message: z.string(), episode_id: z.string().optional() }),
  z.object({ ts: z.string(), kind: z.literal('run-end'), state: z.enum(['finished', 'failed', 'interrupted']), reason: z.string().optional() }),
]);
export type RunEvent = z.infer<typeof runEventSchema>;

/** One task's outcome in `report.json`. */
export const taskOutcomeSchema = z.object({
  task_id: z.string(),
  episode_id: z.string(),
  resolved: z.boolean(),
  total_reward: z.number(),
  steps: z.number().int(),
  duration_ms: z.number(),
  termination_reason: terminationReasonSchema,
  /** Why it was not resolved, in one line (tests that failed, the limit hit, the error). */
  failure_reason: z.string().optional(),
  /** Relative to the run directory. */
  trajectory: z.string(),
  /** SWE-bench's per-instance report, relative to the run directory, when the task is graded that way. */
  instance_report: z.string().optional(),
  /** The reward a Harbor task's verifier wrote, when its submit was graded that way (docs/field-formats.md, "Running a Harbor task"). */
  verifier_reward: z.number().optional(),
  /** A model agent's calls and how its replies fared (absent for the rule agent). */
  model: modelUsageSchema.optional(),
  /** Signals of suspected reward hacking its submit recorded (env/hackSignals.ts); absent when none. */
  suspected_hacks: z.number().int().min(1).optional(),
});
export type TaskOutcome = z.infer<typeof taskOutcomeSchema>;

/**
 * `report.json`: the evaluation summary of a run. `total`, `resolved` and the means count the
 * episodes that ran to their end; an interrupted run says how many of the plan did not.
 */
export const runReportSchema = z.object({
  run: z.string(),
  agent: z.string(),
  dataset: z.string(),
  created_at: z.string(),
  /** How the run ended (absent in reports written before it was recorded). */
  state: z.enum(['finished', 'failed', 'interrupted']).optional(),
  /** Episodes in the plan, finished or not. */
  planned: z.number().int().min(0).optional(),
  /** Episodes of the plan that did not run to their end (interrupted, never started, not recorded). */
  not_finished: z.number().int().min(0).optional(),
  /** Episodes that ran to their end. */
  total: z.number().int(),
  resolved: z.number().int(),
  /** `resolved / total`: of the episodes that ran, not of the plan. */
  resolved_rate: z.number().min(0).max(1),
  mean_steps: z.number(),
  mean_duration_ms: z.number(),
  termination_reasons: z.record(z.string(), z.number().int()),
  /** Episodes that ran whose submit recorded suspected reward hacking (absent in reports written before it was counted). */
  suspected_hacks: z.number().int().min(0).optional(),
  /** The backends the episodes ran on, and why `auto` fell back, if it did. */
  backend: backendSummarySchema.optional(),
  tasks: z.array(taskOutcomeSchema),
  /** A model agent's figures over the episodes that ran: its own steps, parse failures, fallbacks, tokens, time. */
  model: modelSummarySchema.optional(),
  /**
   * Episodes the infrastructure failed, with why. They are in `not_finished`, not in `total` or the
   * resolved rate; a resume runs them again.
   */
  infrastructure_failures: z.array(infrastructureFailureSchema.extend({ task_id: z.string(), episode_id: z.string() })).optional(),
  /** Of the infrastructure failures, the episodes not gradable because the runner witness saw the test runner tampered with (docs/sandbox.md, "The runner witness"). */
  runner_tampered: z.number().int().min(0).optional(),
});
export type RunReport = z.infer<typeof runReportSchema>;

/**
 * `launch.json`: how a run was launched, written by `gp rollout`/`gp eval` when the run starts, so
 * that the editor (or a person) can resume it or launch it again with the same arguments.
 */
export const runLaunchRecordSchema = z.object({
  /** The `gp` command: `rollout`, `eval` or `train` (a training run is re-launched and resumed from the editor too, issue 37). */
  command: z.enum(['rollout', 'eval', 'train']),
  /** The arguments after the command, as given. */
  args: z.array(z.string()),
  /** The folder the command ran in; relative paths in `args` resolve against it. */
  cwd: z.string(),
  /** The agent the resolved config chose. */
  agent: z.string(),
  written_at: z.string(),
  /** A fork's parent (`gp trajectory fork`), so the Runs view shows the fork under its parent episode. */
  fork: trajectoryForkSchema.optional(),
});
export type RunLaunchRecord = z.infer<typeof runLaunchRecordSchema>;

/**
 * `run.lock`: the one process that owns a run folder (runs/runLock.ts). Created exclusively; broken
 * only when its owner is gone from this host.
 */
export const runLockRecordSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  /** The owner's start as the kernel counts it (`/proc/<pid>/stat` field 22), when it could be read. */
  process_start: z.string().optional(),
  command: z.string(),
  locked_at: z.string(),
  /** Unique per lock, so a breaker can tell the lock it judged dead from a new one in its place. */
  nonce: z.string(),
});
export type RunLockRecord = z.infer<typeof runLockRecordSchema>;
