/**
 * What `gp dataset prepare` writes besides the task JSONL: one instance file per task
 * (`instances/<id>.json`, what the sandbox and the grader need) and the prepare report
 * (`prepare_report.json`, what was read, written and skipped, and why). Mirrored by nothing else:
 * the converters build these values and the tests read them back through these schemas.
 */
import { z } from 'zod';

/** Why a source row did not become a task. Each reason is counted separately in the report. */
export const skipReasons = [
  'missing-id',
  'missing-image',
  'missing-problem-statement',
  'invalid-test-list',
  'duplicate-id',
  'invalid-json',
  'not-an-object',
  'non-utf8',
  'unreadable-row',
  'invalid-task',
  /** A Harbor task folder that cannot be read: no task.toml, TOML errors, no or an empty instruction, no tests/test.sh. */
  'invalid-harbor-task',
  /** A Harbor task that asks for what our sandboxes do not give: GPUs, a separate verifier environment, Windows, several steps. */
  'unsupported-harbor-task',
  /** A Harbor task folder with a symbolic link leading out of it, or too large to copy. */
  'unsafe-harbor-task',
] as const;
export type SkipReason = (typeof skipReasons)[number];

/** What a converter changed or could not fill in on a row it did convert, counted per kind. */
export const conversionNotes = [
  'workdir-replaced',
  'title-derived',
  'test-command-derived',
  'test-command-default',
  'no-gold-lists',
  'no-gold-patch',
  'no-test-patch',
  'no-expected-output',
  /** SWE-bench's environment needs conda (an environment.yml): no python_env, so only its image can grade the task. */
  'python-env-conda-only',
  /** The row had no harness spec; its python_env came from --env-specs by repository and version. */
  'python-env-from-specs',
  /** The row had no harness spec; its python_env came from SWE-bench's specification tables (resources/swebench/specs.json). */
  'python-env-from-table',
  /** The specification tables could not give the row's environment (the report's python_env_problems say why); no python_env. */
  'python-env-missing',
  /** Its python_env has the repository's own install (python_env.setup), which the local backend runs per working copy. */
  'python-env-setup',
  /** Steps of its specification the local backend cannot run (they need root) are listed in python_env.skipped. */
  'python-env-steps-skipped',
  /** Its local_repo is the clone of its repository found under --repos. */
  'local-repo-from-repos',
  /** --repos holds no clone of its repository (looked for as owner__name, name and owner/name). */
  'local-repo-missing',
  /** A Harbor task with both environment/Dockerfile and [environment] docker_image: its image is built from the Dockerfile. */
  'harbor-docker-image-ignored',
  /** A Harbor task with only [environment] docker_image: its image is that image with git and a first commit of its workdir added. */
  'harbor-prebuilt-image',
  /** Its Dockerfile's FROM images are replaced by --base-image. */
  'harbor-base-replaced',
  /** Neither its Dockerfile nor [environment] workdir names a working directory, so it is /app (Harbor's template's). */
  'harbor-workdir-default',
  /** Its local working directory lacks what only building its image gives (RUN steps, copies elsewhere); its instance file's harbor.local_gaps say what. */
  'harbor-local-workdir-partial',
  /** Its network_mode is allowlist, which the sandbox cannot enforce, so it gets no network. */
  'harbor-network-allowlist-closed',
  /** It names no network mode; Graph Planner's sandboxes are offline unless a task asks for the network. */
  'harbor-network-default-off',
  /** It asks for storage_mb, which is recorded but not enforced. */
  'harbor-storage-not-enforced',
] as const;
export type ConversionNote = (typeof conversionNotes)[number];

const testList = z.array(z.string());

/**
 * The format a task was prepared from: a converter's name in the registry
 * (`server/src/datasets/converters.ts`: `r2e-gym`, `swebench`, `harbor`), which alone says which
 * formats exist, so that a new one is a module and a registration there.
 */
const datasetKindSchema = z.string().min(1);

/** `instances/<id>.json`: everything about a task that is not the task line itself. No gold patch. */
export const instanceFileSchema = z.strictObject({
  schema: z.literal('graph-planner/instance@1'),
  task_id: z.string().min(1),
  kind: datasetKindSchema,
  source: z.strictObject({ dataset: z.string(), split: z.string(), place: z.string() }),
  docker_image: z.string().min(1),
  requires_build: z.boolean(),
  repo: z.string().optional(),
  workdir: z.string().min(1),
  test_command: z.string().min(1),
  base_commit: z.string().optional(),
  commit_hash: z.string().optional(),
  version: z.string().optional(),
  environment_setup_commit: z.string().optional(),
  test_patch: z.string().optional(),
  test_files: z.array(z.string()).optional(),
  FAIL_TO_PASS: testList.optional(),
  PASS_TO_PASS: testList.optional(),
  expected_output_json: z.record(z.string(), z.string()).optional(),
  swebench_spec: z.record(z.string(), z.unknown()).optional(),
  relevant_files: z.array(z.string()).optional(),
  /** A Harbor task: where it came from and what of its task.toml the task entry does not carry. */
  harbor: z
    .strictObject({
      folder: z.string(),
      name: z.string().optional(),
      schema_version: z.string().optional(),
      /** The images its Dockerfile starts FROM (before any --base-image), or its [environment] docker_image. */
      from_images: z.array(z.string()),
      agent_timeout_sec: z.number().optional(),
      verifier_timeout_sec: z.number(),
      build_timeout_sec: z.number().optional(),
      network_mode: z.enum(['no-network', 'public', 'allowlist']).optional(),
      has_solution: z.boolean(),
      /** What the local backend's working directory lacks that the image has. */
      local_gaps: z.array(z.string()),
    })
    .optional(),
});
export type InstanceFile = z.infer<typeof instanceFileSchema>;

const count = z.int().min(0);

/** One skipped row, kept as an example in the report (the first few of each reason). */
export const skippedExampleSchema = z.strictObject({ place: z.string(), reason: z.enum(skipReasons), message: z.string() });

/** `prepare_report.json`. */
export const prepareReportSchema = z.strictObject({
  schema: z.literal('graph-planner/prepare-report@1'),
  kind: datasetKindSchema,
  dataset: z.string(),
  requested_split: z.string(),
  effective_split: z.string(),
  sources: z.array(z.strictObject({ file: z.string(), rows: count.optional() })),
  rows_read: count,
  converted: count,
  skipped: count,
  skipped_by_reason: z.partialRecord(z.enum(skipReasons), count),
  skipped_examples: z.array(skippedExampleSchema),
  notes: z.partialRecord(z.enum(conversionNotes), count),
  outputs: z.array(z.strictObject({ split: z.string(), tasks: z.string(), manifest: z.string(), rows: count, images: count, build_only: count })),
  instances: count,
  /** Why rows got no python_env from the specification tables: one entry per distinct reason (repository and version), with how many tasks it left without one. */
  python_env_problems: z.array(z.strictObject({ message: z.string(), tasks: count })).optional(),
  gold_predictions: z.string().optional(),
  duration_ms: count,
});
export type PrepareReport = z.infer<typeof prepareReportSchema>;
