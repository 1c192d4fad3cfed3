/**
 * The experiment config: every section and field of the original's config (docs/original-system.md#h1-config-sections), with a
 * description, type, default, unit and allowed range. This file is the single source of truth:
 * `npm run schemas` emits `schemas/experiment.schema.json`, the configuration reference (docs/reference/configuration.md)
 * and the `contributes.configuration` block from it, and the language server validates YAML
 * against the emitted JSON Schema.
 */
import { z } from 'zod';
import { timerSeconds } from '../protocol/durations.js';
import { agentNames, patchModelNames } from '../protocol/agentNames.js';
import { containerCapabilities, sandboxBackendSchema } from '../protocol/sandbox.js';
import { failedMemberRules } from '../protocol/noOutcome.js';

/** Extra metadata that the JSON Schema carries for hover and the generated reference. */
export interface FieldMeta {
  /** The unit a number is measured in, shown in hover and the reference. */
  readonly unit?: string;
  /** Where the value goes downstream (Verl/rLLM key), for people who know the trainer. */
  readonly maps_to?: string;
  /**
   * The value is a path on disk, resolved as the loader resolves it (against the working folder):
   * a task file (JSONL) or a folder. The editor completes such values from the disk and checks them.
   */
  readonly path_kind?: 'tasks-file' | 'folder';
}

function meta<T extends z.ZodType>(schema: T, description: string, extra: FieldMeta = {}): T {
  return schema.meta({ description, ...extra });
}

const nonNegInt = () => z.int().min(0);
const posInt = () => z.int().min(1);

/** A GPU memory size such as `80GiB`, `40GB` or `24000MiB`. */
export const memorySizePattern = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)\s*$/;

const experiment = z
  .strictObject({
    name: meta(z.string().min(1).default('graph_planner_rl'), 'Name of the experiment; the default run name starts with it.'),
    seed: meta(nonNegInt().default(42), 'Random seed for Python, NumPy and Torch; cuDNN runs deterministically.'),
    notes: meta(z.string().nullable().default(null), 'Free text kept with the run for people reading it later.'),
    allow_unknown_keys: meta(
      z.boolean().default(false),
      'Report keys the schema does not know as warnings instead of errors, so a config written for a newer Graph Planner still launches. Off by default: an unknown key is an error, because a misspelt key would leave its setting at the default.',
    ),
  })
  .meta({ description: 'What the experiment is called and how it is seeded.' });

const paths = z
  .strictObject({
    dataset_train: meta(
      z.string().min(1).default('datasets/r2e_gym/train.jsonl'),
      'Training tasks (JSONL, one task per line). Relative paths resolve against the project folder.',
      { maps_to: 'data.train_files', path_kind: 'tasks-file' },
    ),
    dataset_val: meta(z.string().nullable().default('datasets/r2e_gym/val.jsonl'), 'Validation tasks (JSONL); null to train without validation.', {
      maps_to: 'data.val_files',
      path_kind: 'tasks-file',
    }),
    planner_model: meta(
      z.string().min(1).default('models/Qwen3-14B'),
      'Planner model: a local folder with config.json and weights, or a model name the backend serves.',
      { maps_to: 'actor_rollout_ref.model.path', path_kind: 'folder' },
    ),
    planner_tokenizer: meta(z.string().nullable().default(null), 'Planner tokenizer folder; null uses the model folder.', { path_kind: 'folder' }),
    cgm_model: meta(z.string().min(1).default('models/CodeFuse-CGM'), 'CGM patch model: a local folder or a model name the backend serves.', {
      path_kind: 'folder',
    }),
    cgm_tokenizer: meta(z.string().nullable().default(null), 'CGM tokenizer folder; null uses the model folder.', { path_kind: 'folder' }),
  })
  .meta({ description: 'Where datasets and models live.' });

const dtypes = ['bf16', 'fp16', 'fp32', 'bfloat16', 'float16', 'float32'] as const;

const backends = z
  .strictObject({
    planner_backend: meta(
      z.enum(['local', 'openai', 'embedded']).default('local'),
      "How the planner is served: `local` loads it in the trainer (vLLM through Verl), `openai` calls an OpenAI-compatible endpoint, `embedded` starts the small CPU model this machine's setup installed (`gp model serve`) for the run and stops it after; it checks a pipeline end to end, it does not solve tasks. With planner_endpoint set, the endpoint is used instead.",
    ),
    cgm_backend: meta(
      z.enum(['local', 'openai', 'embedded']).default('local'),
      'How CGM is served: `local` loads it beside the planner, `openai` calls an OpenAI-compatible endpoint, `embedded` uses the embedded model through chat completions (cgm_protocol `chat`), the same server as an embedded planner.',
    ),
    planner_endpoint: meta(z.url().nullable().default(null), 'Base URL of the planner endpoint when planner_backend is `openai`.'),
    cgm_endpoint: meta(z.url().nullable().default(null), 'Base URL of the CGM endpoint when cgm_backend is `openai`.'),
    planner_model_name: meta(
      z.string().min(1).nullable().default(null),
      'Model name sent to the planner endpoint; null uses the last folder of paths.planner_model.',
    ),
    planner_api_key_env: meta(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use an environment variable name')
        .default('PLANNER_MODEL_API_KEY'),
      "Environment variable holding the planner endpoint's API key (the key itself never goes in the YAML); unset sends no key.",
    ),
    cgm_protocol: meta(
      z.enum(patchModelNames).default('generate'),
      "How the CGM endpoint is called: `generate` posts the CGM service's JSON body to the endpoint URL, `chat` uses OpenAI-compatible chat completions under it.",
    ),
    cgm_model_name: meta(z.string().min(1).nullable().default(null), 'Model name sent to the CGM endpoint; null uses the last folder of paths.cgm_model.'),
    cgm_api_key_env: meta(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use an environment variable name')
        .default('CGM_API_KEY'),
      "Environment variable holding the CGM endpoint's API key; unset sends no key.",
    ),
    embedded_model: meta(
      z.string().min(1).nullable().default(null),
      'The GGUF file the embedded backend serves; null uses the one scripts/setup-language-model.sh installed (SmolLM2-135M-Instruct, in $GP_LANGUAGE_MODEL_DIR).',
    ),
    embedded_context_size: meta(posInt().min(512).max(131072).default(8192), 'Context window of the embedded model: the prompt and the reply together.', {
      unit: 'tokens',
    }),
    embedded_threads: meta(posInt().max(1024).nullable().default(null), 'CPU threads of the embedded model; null uses every core.'),
    request_timeout: meta(timerSeconds().default(120), 'Time limit of one request to a model endpoint.', { unit: 's' }),
    request_retries: meta(nonNegInt().max(20).default(3), 'Retries of a model request after a timeout, HTTP 429 or 5xx, with exponential backoff.'),
    dtype: meta(z.enum(dtypes).default('bf16'), 'Weight dtype of the served models; also used by the GPU memory estimate.'),
    device_map_planner: meta(z.array(nonNegInt()).default([]), 'GPU indices the planner uses on each node; empty lets the trainer place it.'),
    device_map_cgm: meta(z.array(nonNegInt()).default([]), 'GPU indices CGM uses on each node; it may overlap the planner map on a single-GPU debug run.'),
    max_gpu_memory: meta(
      z.string().regex(memorySizePattern, 'use a size such as 80GiB or 40GB').nullable().default(null),
      'Memory of one GPU, such as `80GiB`; the memory estimate compares against it (null assumes 80GiB).',
    ),
  })
  .meta({ description: 'How and where the planner and CGM models are served.' });

const plannerSampling = z
  .strictObject({
    temperature: meta(z.number().min(0).max(2).default(1.0), 'Sampling temperature of planner rollouts.', {
      maps_to: 'actor_rollout_ref.rollout.temperature',
    }),
    top_p: meta(z.number().gt(0).max(1).default(1.0), 'Nucleus sampling mass of planner rollouts.', {
      maps_to: 'actor_rollout_ref.rollout.top_p',
    }),
    top_k: meta(z.int().min(-1).default(-1), 'Top-k sampling of planner rollouts; -1 disables it.'),
    repetition_penalty: meta(z.number().gt(0).default(1.0), 'Repetition penalty of planner rollouts; 1.0 disables it.'),
    do_sample: meta(z.boolean().default(true), 'Sample (true) or decode greedily (false).'),
    stop_on_invalid_json: meta(z.boolean().default(false), 'End an episode at the first reply the action protocol cannot parse.'),
    max_new_tokens: meta(posInt().default(512), 'Longest planner reply per turn.', {
      unit: 'tokens',
      maps_to: 'data.max_response_length',
    }),
    max_input_tokens: meta(posInt().default(4096), 'Longest planner prompt.', { unit: 'tokens', maps_to: 'data.max_prompt_length' }),
    stop: meta(z.array(z.string()).default([]), "Stop strings for planner replies (the model agent adds the reply format's own terminator, `</function>`)."),
    structured_output: meta(
      z.enum(['off', 'json_schema', 'json_object']).default('off'),
      "Constrain `gp rollout` and `gp eval` replies to the actions' JSON Schema: `json_schema` is OpenAI's, vLLM's and SGLang's `response_format`, `json_object` is llama.cpp's (the embedded backend takes either). The model then replies with one JSON object instead of the reply text format. Training never uses it.",
    ),
    stop_ids: meta(z.array(nonNegInt()).default([]), 'Stop token ids for planner replies.'),
  })
  .meta({ description: 'How the planner samples its replies.' });

const cgmGeneration = z
  .strictObject({
    temperature: meta(z.number().min(0).max(2).default(0.2), 'Sampling temperature of CGM patches.'),
    top_p: meta(z.number().gt(0).max(1).default(0.9), 'Nucleus sampling mass of CGM patches.'),
    top_k: meta(z.int().min(-1).default(-1), 'Top-k sampling of CGM patches; -1 disables it.'),
    max_new_tokens: meta(posInt().default(2048), 'Longest CGM reply.', { unit: 'tokens' }),
    num_return_sequences: meta(posInt().max(64).default(1), 'Candidate patches CGM returns per repair.'),
    do_sample: meta(z.boolean().default(false), 'Sample (true) or decode greedily (false).'),
  })
  .meta({ description: 'How CGM generates patches.' });

const training = z
  .strictObject({
    adv_estimator: meta(
      z.enum(['grpo', 'rloo', 'reinforce_plus_plus', 'gae', 'remax']).default('grpo'),
      'Advantage estimator Verl uses; gp train runs grpo as GRPO over real outcomes (grpo_real_outcomes), which leaves episodes without an outcome out of their group (failed_members).',
      { maps_to: 'algorithm.adv_estimator' },
    ),
    failed_members: meta(
      z.enum(failedMemberRules).default('exclude'),
      'What GRPO does with a group member that reached no outcome (infrastructure failure, host lost, not gradable): exclude leaves it out of its group’s mean and standard deviation with advantage 0 (a group left with fewer than two outcomes gets 0); drop_group gives the whole group 0.',
      { maps_to: 'algorithm.failed_members' },
    ),
    total_epochs: meta(posInt().default(1), 'Passes over the training tasks.', { maps_to: 'trainer.total_epochs' }),
    train_batch_size: meta(posInt().default(4), 'Tasks (prompts) per training step.', { unit: 'tasks', maps_to: 'data.train_batch_size' }),
    rollout_n: meta(posInt().default(4), 'Episodes sampled per task in one step (the GRPO group size).', {
      unit: 'episodes',
      maps_to: 'actor_rollout_ref.rollout.n',
    }),
    ppo_mini_batch_size: meta(posInt().nullable().default(null), 'Tasks per PPO mini-batch; null uses train_batch_size (one update per step).', {
      unit: 'tasks',
      maps_to: 'actor_rollout_ref.actor.ppo_mini_batch_size',
    }),
    grad_accum_steps: meta(
      posInt().default(1),
      'Gradient accumulation steps per PPO mini-batch; gp train derives actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu from it.',
    ),
    precision: meta(z.enum(['bf16', 'fp16', 'fp32']).nullable().default(null), 'Mixed precision of training; null keeps the trainer default.'),
    lr: meta(z.number().gt(0).max(1).nullable().default(null), 'Actor learning rate; null keeps Verl’s default (1e-6).', {
      maps_to: 'actor_rollout_ref.actor.optim.lr',
    }),
    weight_decay: meta(z.number().min(0).nullable().default(null), 'Weight decay of the optimiser.'),
    warmup_steps: meta(nonNegInt().nullable().default(null), 'Learning-rate warm-up.', { unit: 'steps' }),
    total_steps: meta(posInt().nullable().default(null), 'Stop after this many steps; null runs total_epochs.', {
      unit: 'steps',
      maps_to: 'trainer.total_training_steps',
    }),
    resume_from: meta(z.string().nullable().default(null), 'Checkpoint folder to resume from.'),
    gradient_checkpointing: meta(z.boolean().default(false), 'Trade compute for memory in the actor.'),
    clip_grad_norm: meta(z.number().gt(0).nullable().default(null), 'Clip gradients to this norm.'),
    kl_coef: meta(z.number().min(0).nullable().default(null), 'KL loss coefficient against the reference model.'),
    entropy_coef: meta(z.number().min(0).nullable().default(null), 'Entropy bonus coefficient.'),
    value_coef: meta(z.number().min(0).nullable().default(null), 'Value loss coefficient (GAE only).'),
    clip_coef: meta(z.number().gt(0).max(1).nullable().default(null), 'PPO clip ratio.'),
    target_kl: meta(z.number().gt(0).nullable().default(null), 'Adaptive KL target.'),
  })
  .meta({ description: 'Policy optimisation settings passed to Verl.' });

const env = z
  .strictObject({
    max_steps: meta(posInt().max(1000).default(6), 'Most planner actions per episode; a task’s own max_steps lowers it further.', {
      unit: 'steps',
    }),
    reward_scale: meta(z.number().gt(0).default(1.0), 'Multiplier on the success reward.'),
    failure_penalty: meta(
      z.number().default(0.0),
      'Subtracted when an episode ends without a fix. A non-negative magnitude: a negative value rewards failure.',
    ),
    step_penalty: meta(z.number().default(0.0), 'Subtracted per action. A non-negative magnitude.'),
    timeout_penalty: meta(z.number().default(0.0), 'Subtracted when an episode hits a limit. A non-negative magnitude.'),
    repo_op_limit: meta(posInt().nullable().default(null), 'Most repository operations (explore, repair, submit) per episode; null is unlimited.'),
    step_timeout: meta(timerSeconds().default(600), 'Time one environment step may take; the episode ends with step_timeout after it.', { unit: 's' }),
    episode_timeout: meta(timerSeconds().default(3600), 'Time one episode may take, agent included; it ends with episode_timeout after it.', { unit: 's' }),
    semantic_search: meta(
      z.enum(['auto', 'off']).default('auto'),
      "Whether the issue's hints fuse a sentence-embedding retriever with BM25: `auto` when the model is installed (scripts/setup-embedding-model.sh; the first episode on new code embeds its definitions once, about 200 a second, then they are cached), `off` for BM25 and anchors alone.",
    ),
    memory_nodes: meta(posInt().default(200), 'Most nodes in the working subgraph; a memory commit beyond it is refused.'),
    memory_edges: meta(posInt().default(1000), 'Most edges in the working subgraph.'),
    memory_note_tokens: meta(posInt().default(2000), 'Most tokens of notes in working memory (estimated as characters / 4).', { unit: 'tokens' }),
    max_edits_per_patch: meta(posInt().max(1000).default(20), 'Most line-range edits in one repair candidate (guard).'),
    max_lines_per_edit: meta(posInt().default(200), 'Most lines one edit may replace (guard).'),
    max_repair_candidates: meta(posInt().max(1000).default(64), 'Most candidates one repair tries, each applied and tested.'),
    protected_paths: meta(
      z.enum(['refuse', 'penalise', 'allow']).default('refuse'),
      "Whether a repair may change a file the grader depends on: any conftest.py, the test settings (pytest.ini, tox.ini, setup.cfg, pyproject.toml, noxfile.py), sitecustomize.py, .pth files and the task's own test files. `refuse` turns the candidate away with the file named (the step shows it); `penalise` lets it through and takes env.protected_penalty off the submit's reward; `allow` lets it through. A submitted patch that changes such a file is flagged in the trajectory whatever this says.",
    ),
    protected_penalty: meta(
      z.number().min(0).default(1),
      'With protected_paths: penalise, what a submit loses when its patch changes a protected file (a magnitude, subtracted).',
    ),
    disable_cgm_synthesis: meta(z.boolean().default(false), 'Let the rule fallback write patches instead of CGM.'),
    apply_patches: meta(z.boolean().default(true), 'Apply repairs in the sandbox (false returns candidate diffs only).'),
    docker_manifest: meta(z.string().nullable().default(null), 'Image manifest to pre-pull; null derives it from the datasets.'),
    prepull_containers: meta(z.boolean().default(false), 'Pull every task image before training starts.'),
    prepull_max_workers: meta(posInt().max(256).default(40), 'Parallel image pulls.'),
    prepull_retries: meta(nonNegInt().max(100).default(5), 'Retries per image pull.'),
    prepull_delay: meta(z.number().min(0).default(5), 'Pause between pull retries.', { unit: 's' }),
    prepull_timeout: meta(timerSeconds().default(300), 'Time limit of one image pull.', { unit: 's' }),
  })
  .meta({ description: 'The planner environment: limits, rewards and images.' });

const sandbox = z
  .strictObject({
    backend: meta(
      sandboxBackendSchema.default('auto'),
      'Where tasks run: `docker` containers, `local` working copies on this machine (trusted repositories only), or `auto` (docker when the daemon answers and the task has an image).',
    ),
    memory: meta(
      z.string().regex(memorySizePattern, 'use a size such as 4GiB or 512MiB').nullable().default('4GiB'),
      'Memory limit of one sandbox (Docker memory limit; `ulimit -v` on the local backend); null for none.',
    ),
    cpus: meta(z.number().gt(0).max(1024).nullable().default(2), 'CPUs one sandbox may use (Docker only); null for no limit.'),
    pids: meta(posInt().nullable().default(1024), 'Most processes in one sandbox (Docker only); null for no limit.'),
    command_timeout: meta(
      timerSeconds().default(900),
      'Time limit of one command in a sandbox (exploration commands, patch applies, diffs and every other git operation); the command is killed after it. Test runs have their own limit, test_timeout.',
      { unit: 's' },
    ),
    test_timeout: meta(timerSeconds().default(1800), "Time limit of one run of a task's tests.", { unit: 's' }),
    output_limit: meta(
      z.string().regex(memorySizePattern, 'use a size such as 1MiB').default('1MiB'),
      'Output kept per stream of one command; the rest is counted and dropped with a marker.',
    ),
    capabilities: meta(
      z.array(z.enum(containerCapabilities)).default([]),
      "Linux capabilities a task container keeps; all others are dropped, and no process in it can gain privileges (`no-new-privileges`). Empty suffices for test runs, patches and git (measured on the samples and SWE-bench-style images); add `DAC_OVERRIDE` when a task writes into a mounted folder another user owns. Only Docker's default capabilities may be named.",
    ),
    unknown_base: meta(
      z.enum(['refuse', 'warn']).default('refuse'),
      "A task without sandbox.base_commit whose test command checks its tests out at a commit (SWE-bench's eval scripts do) must run on that commit: on any other, a copy that already holds the fix would grade an empty patch as resolved. `refuse` stops the task with what to set; `warn` runs it with a warning.",
    ),
    allowed_mount_roots: meta(
      z.array(z.string().min(1)).default([]),
      'Host folders a task file may mount into its container (`sandbox.mounts`); a mount outside them is refused before any container starts. Empty: no host mount at all. `/` and the Docker socket are refused whatever this says. `--allow-mount-root DIR` sets it from the command line.',
    ),
  })
  .meta({ description: 'Sandboxes the tasks run in: backend, resource limits, time limits and the host folders tasks may mount.' });

const rollout = z
  .strictObject({
    agent: meta(
      z.enum(agentNames).default('rule'),
      'Who acts in `gp rollout` and `gp eval`: the model-free `rule` agent, or the planner `model` behind backends.planner_endpoint.',
    ),
    fallback_to_rule: meta(
      z.boolean().default(false),
      "When the model's reply cannot be parsed or its endpoint refuses the request, let the rule agent take that step (the reason is recorded, and the summary and report.json count those steps and the resolved episodes that needed them apart from the model's own). Off by default so that no evaluation is padded; an unreachable endpoint is an infrastructure failure either way.",
    ),
    parallel: meta(posInt().max(256).default(2), 'Episodes run at once.'),
    attempts: meta(posInt().max(100).default(1), 'Episodes per task.'),
  })
  .meta({ description: 'Rollouts and evaluations outside training (`gp rollout`, `gp eval`).' });

const prompts = z
  .strictObject({
    system: meta(
      z.string().min(1).nullable().default(null),
      "A text file with the planner's system prompt: its role, the actions and their parameters (the reply format and the examples follow it); null uses the built-in text.",
    ),
    reply_format: meta(
      z.string().min(1).nullable().default(null),
      "A text file with the reply format's instructions; null uses the built-in text for the format in use (text blocks, or JSON with structured output).",
    ),
    few_shot: meta(
      z.string().min(1).nullable().default(null),
      'A text file with example replies, sent after the reply format; null uses one built-in example per action.',
    ),
    example_turns: meta(
      z.boolean().default(true),
      "In `gp rollout` and `gp eval`, send one example exchange (a made-up observation and a valid reply) as chat turns before the first observation: small models copy a turn's format far more readily than a description of it.",
    ),
    observation_budget: meta(
      posInt().min(200).nullable().default(null),
      'Most characters of one observation the planner model is sent; the rest is left out with a marker saying how much. null sends it whole.',
      { unit: 'characters' },
    ),
  })
  .meta({
    description:
      "The planner model's prompt, from files an experiment can point at: `gp rollout` and `gp eval` send it, and in training the environment service tells the agent loop to (always in the reply text format); paths resolve against the working folder.",
  });

const parallel = z
  .strictObject({
    tensor_parallel_planner: meta(posInt().default(1), 'GPUs one planner replica is split across.', {
      maps_to: 'actor_rollout_ref.rollout.tensor_model_parallel_size',
    }),
    tensor_parallel_cgm: meta(posInt().default(1), 'GPUs one CGM replica is split across.'),
    replicas: meta(posInt().default(1), 'Planner inference replicas.'),
    parallel_agents: meta(
      posInt().default(1),
      'Agents stepping episodes at once; in training, the environment service’s cap on open episodes (more are told to retry).',
    ),
    rollout_workers: meta(posInt().default(1), 'Rollout worker processes.', { maps_to: 'actor_rollout_ref.rollout.agent.num_workers' }),
    workflow_parallel: meta(posInt().default(1), 'Tasks in flight at once; at least max(parallel_agents, rollout_workers).'),
  })
  .meta({ description: 'How work is split across GPUs and workers.' });

const resources = z
  .strictObject({
    num_gpus: meta(nonNegInt().max(1024).default(1), 'GPUs per node.', { maps_to: 'trainer.n_gpus_per_node' }),
    num_nodes: meta(posInt().max(1024).default(1), 'Nodes in the Ray cluster.', { maps_to: 'trainer.nnodes' }),
    ray_num_gpus: meta(nonNegInt().default(1), 'GPUs Ray may schedule.', { maps_to: 'ray_kwargs.ray_init.num_gpus' }),
    ray_num_cpus: meta(posInt().default(4), 'CPUs Ray may schedule; each rollout worker needs 4.', {
      maps_to: 'ray_kwargs.ray_init.num_cpus',
    }),
    ray_memory: meta(posInt().nullable().default(null), 'Memory Ray may schedule.', { unit: 'bytes' }),
    ray_object_store_memory: meta(posInt().nullable().default(null), 'Size of Ray’s object store.', { unit: 'bytes' }),
  })
  .meta({ description: 'The hardware a run may use.' });

const wandb = z
  .strictObject({
    enabled: meta(z.boolean().default(false), 'Log to Weights & Biases.'),
    offline: meta(z.boolean().default(false), 'Keep W&B logs on disk (sync later with `wandb sync`).'),
    project: meta(z.string().min(1).default('graph-planner'), 'W&B project.', { maps_to: 'trainer.project_name' }),
    entity: meta(z.string().nullable().default(null), 'W&B team or user; null uses your default.'),
    run_name: meta(
      z
        .string()
        .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, dot, dash and underscore')
        .nullable()
        .default(null),
      'Run name and run folder name; null uses `<experiment.name>-<command>-<timestamp>`.',
      { maps_to: 'trainer.experiment_name' },
    ),
    watch: z
      .strictObject({
        enabled: meta(z.boolean().default(false), 'Log gradients or parameters with wandb.watch.'),
        log: meta(z.enum(['gradients', 'parameters', 'all']).default('gradients'), 'What wandb.watch logs.'),
        log_freq: meta(posInt().default(200), 'Log every N steps.', { unit: 'steps' }),
      })
      .prefault({})
      .meta({ description: 'Model watching in W&B.' }),
  })
  .prefault({})
  .meta({ description: 'Weights & Biases logging.' });

const logging = z
  .strictObject({
    wandb,
    log_backend: meta(z.enum(['none', 'console', 'file', 'wandb', 'tensorboard']).default('file'), 'Where Verl logs metrics.', {
      maps_to: 'trainer.logger',
    }),
    output_dir: meta(z.string().min(1).default('outputs'), 'Parent of run folders; a run writes to `<output_dir>/<run_name>/`.'),
    save_interval: meta(posInt().nullable().default(null), 'Checkpoint every N steps; null never.', {
      unit: 'steps',
      maps_to: 'trainer.save_freq',
    }),
    eval_interval: meta(posInt().nullable().default(null), 'Validate every N steps; null never.', {
      unit: 'steps',
      maps_to: 'trainer.test_freq',
    }),
  })
  .meta({ description: 'Where a run writes and logs.' });

const telemetry = z
  .strictObject({
    log_gpu: meta(z.boolean().default(true), 'Record GPU utilisation and memory.'),
    log_ray: meta(z.boolean().default(true), 'Record Ray cluster state.'),
    log_patch_stats: meta(z.boolean().default(true), 'Record patch sizes and apply results.'),
    log_planner_parse_errors: meta(z.boolean().default(true), 'Record planner replies the protocol rejected.'),
    log_cgm_errors: meta(z.boolean().default(true), 'Record CGM failures.'),
  })
  .meta({ description: 'What a run records besides metrics.' });

const verlOverrides = z
  .record(z.string(), z.unknown())
  .default({})
  .meta({ description: 'Verl/Hydra keys passed through unchanged, nested (`trainer: {n_gpus_per_node: 8}`); applied last.' });

const run = z
  .strictObject({
    name: meta(z.string(), 'The run name.'),
    dir: meta(z.string(), 'The run folder.'),
    config_path: meta(z.string(), 'This file.'),
    command: meta(z.string(), 'The command that resolved it.'),
    created_at: meta(z.string(), 'When it was resolved (ISO 8601).'),
    ignored_overrides: meta(z.array(z.string()).default([]), 'Command-line overrides that --yaml-only ignored.'),
  })
  .meta({ description: 'Written by gp into resolved_config.yaml; ignored when read back.' });

export const sectionSchemas = {
  experiment,
  paths,
  backends,
  planner_sampling: plannerSampling,
  cgm_generation: cgmGeneration,
  training,
  env,
  sandbox,
  rollout,
  prompts,
  parallel,
  resources,
  logging,
  telemetry,
} as const;

export const experimentConfigSchema = z
  .strictObject({
    experiment: experiment.prefault({}),
    paths: paths.prefault({}),
    backends: backends.prefault({}),
    planner_sampling: plannerSampling.prefault({}),
    cgm_generation: cgmGeneration.prefault({}),
    training: training.prefault({}),
    env: env.prefault({}),
    sandbox: sandbox.prefault({}),
    rollout: rollout.prefault({}),
    prompts: prompts.prefault({}),
    parallel: parallel.prefault({}),
    resources: resources.prefault({}),
    logging: logging.prefault({}),
    telemetry: telemetry.prefault({}),
    verl_overrides: verlOverrides,
    run: run.optional(),
  })
  .meta({
    title: 'Graph Planner experiment',
    description: 'One experiment: datasets, models, sampling, training, environment, parallelism, resources and logging.',
  });

export type ExperimentConfig = z.output<typeof experimentConfigSchema>;
export type ExperimentConfigInput = z.input<typeof experimentConfigSchema>;
export type SectionName = keyof typeof sectionSchemas;
