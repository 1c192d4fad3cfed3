/**
 * The task entry: one line of a dataset JSONL file, in the canonical nested shape (docs/original-system.md#g1-task-entry, with
 * the sandbox of F.1). This file is the single source of truth: `npm run schemas` writes
 * `schemas/task.schema.json` from `taskEntryJsonSchema()`, and the JSONL validator compiles that
 * JSON Schema with ajv. Objects are strict so that the emitted schema says
 * `additionalProperties: false`; the validator reports unknown keys as warnings, not errors,
 * because the original system ignored keys it did not know and real datasets carry a few.
 */
import { z } from 'zod';
import { timerSeconds } from '../protocol/durations.js';
import { controlCharacterClass, firstControlCharacter } from '../protocol/terminalText.js';
import { certificationSchema } from '../protocol/verify.js';
import { legacyDockerBackendNames, sandboxBackendChoices } from '../protocol/sandboxBackends.js';

function described<T extends z.ZodType>(schema: T, description: string): T {
  return schema.meta({ description });
}

/** Backends a sandbox can use; `repoenv` and `r2e` are the original system's names for docker. */
export const sandboxBackends = [...sandboxBackendChoices, ...legacyDockerBackendNames] as const;

export { legacyDockerBackends } from '../protocol/sandbox.js';

const mountObject = z
  .strictObject({
    host: described(z.string().min(1), "Path on the host; a relative path resolves against the JSONL file's folder."),
    container: described(z.string().min(1), 'Absolute path inside the sandbox where the host path appears.'),
    mode: described(z.enum(['ro', 'rw']).default('rw'), 'Read-only (`ro`) or read-write (`rw`, the Docker default).'),
  })
  .meta({ description: 'One bind mount from the host into the sandbox.' });

/** `host:container` or `host:container:ro|rw`, the Docker CLI's short form. */
export const mountStringPattern = /^[^:]+:[^:]+(?::(?:ro|rw))?$/;

const mountString = described(z.string().regex(mountStringPattern), "A bind mount in Docker's short form `host:container[:ro|rw]`.");

const mounts = described(
  z.union([
    z.array(z.union([mountObject, mountString])).meta({ description: 'Mounts as a list of objects or `host:container[:mode]` strings.' }),
    z.record(z.string(), z.string()).meta({ description: "Mounts as a map from host path to container path (the original system's form)." }),
  ]),
  'Host folders mounted into the sandbox: a list of {host, container, mode} or "host:container[:mode]", or a map host → container.',
);

const pythonEnv = z
  .strictObject({
    python: described(
      z.string().min(1).default('python3'),
      'Interpreter the environment is made from: a version (`3.9`, found as `python3.9` on PATH or under pyenv), a command name or an absolute path. Default `python3`.',
    ),
    packages: described(
      z.array(z.string().min(1)).default([]),
      "Requirement specifiers installed from the package index, e.g. `pytest==7.4.0` (SWE-bench's pinned list for the repository and version).",
    ),
    requirements: described(z.string().min(1).optional(), "A requirements file installed as well; a relative path resolves against the JSONL file's folder."),
    as_of: described(
      z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
        .optional(),
      "The day (`YYYY-MM-DD`) every package the environment leaves unpinned is resolved as of: pip, setuptools and wheel, the packages, their dependencies and the build requirements of source distributions. `gp dataset prepare` writes the day the harness built the environment of SWE-bench's specification (docs/upstream-contracts.md#environments-as-of-a-date). Absent: the day the environment is built, recorded with it.",
    ),
    pythonpath: described(
      z.array(z.string()).optional(),
      'Folders of the repository put first on PYTHONPATH, so tests import the code under test rather than an installed copy. Default: `src` when the repository keeps its packages there, else the repository root.',
    ),
    setup: described(
      z.array(z.string().min(1)).optional(),
      "Commands run in each working copy when a local sandbox opens, after the base commit is checked out: the repository's own install from SWE-bench's specification (its `pre_install` steps, then `install`, e.g. `python -m pip install -e .`). They run in a venv of that working copy layered on the shared environment, which stays one per specification; files they change are committed, so patches are diffed after them. The docker backend does not run them: SWE-bench's images ran them when they were built.",
    ),
    skipped: described(
      z.array(z.string()).optional(),
      'Steps of the specification that the local backend does not run, each with the reason (they need root, e.g. `apt-get install`); the tests that need them may fail on this machine.',
    ),
    source: described(
      z.string().optional(),
      "Where the environment came from, e.g. `swebench==4.1.0 sqlfluff/sqlfluff 0.6` (SWE-bench's specification tables, repository and version).",
    ),
  })
  .meta({
    description:
      "The Python environment the task's commands run in: a venv per distinct specification, built by `gp env build` (local backend) or as an image on top of graph-planner/base (`gp images build --tasks`).",
  });

const resources = z
  .strictObject({
    cpus: described(
      z.number().positive().optional(),
      "CPUs this task's sandbox may use; replaces the config's `sandbox.cpus` for this task (Docker only). From a Harbor task's `[environment] cpus`.",
    ),
    memory_mb: described(
      z.int().positive().optional(),
      "Memory this task's sandbox may use, in MiB; replaces the config's `sandbox.memory` for this task. From a Harbor task's `[environment] memory_mb`.",
    ),
    storage_mb: described(
      z.int().positive().optional(),
      "Disk the task asks for, in MiB (Harbor's `[environment] storage_mb`). Recorded, not enforced: Docker limits a container's disk only on overlay2 over XFS with project quotas.",
    ),
  })
  .meta({ description: "The resources the task asks for, which replace the config's sandbox limits for this task (a Harbor task's `[environment]` table)." });

const imageRecipe = z
  .strictObject({
    dockerfile: described(
      z.string().min(1),
      "The Dockerfile the task's `docker_image` is built from; its folder is the build context. A relative path resolves against the JSONL file's folder. `gp images build --tasks FILE` builds it, adding git and a first commit of `workdir` so the sandbox can diff the agent's work.",
    ),
    base_image: described(
      z.string().min(1).optional(),
      'An image that replaces what the Dockerfile starts `FROM` (`gp dataset prepare harbor --base-image`), for machines that cannot pull the original base, e.g. `graph-planner/base:latest`.',
    ),
  })
  .meta({ description: "How the task's image is built (a converted Harbor task's `environment/Dockerfile`)." });

/** A task's `sandbox` block; the Tasks view's index keeps the fields that say where it can run. */
export const taskSandboxSchema = z
  .strictObject({
    docker_image: described(
      z.string().min(1).optional(),
      'Container image the task runs in, e.g. `graph-planner/repoenv-sample:latest`. Required unless `local_repo` is given.',
    ),
    workdir: described(
      z.string().min(1),
      'Directory inside the sandbox that holds the repository (SWE-bench images use `/testbed`). Required: there is no default.',
    ),
    mounts: mounts.default([]),
    env: described(z.record(z.string(), z.string()).default({}), 'Environment variables set for every command in the sandbox.'),
    backend: described(
      z.enum(sandboxBackends).default('auto'),
      'Where the sandbox runs: `docker`, `local` (a working copy on this machine) or `auto` (docker when available). `repoenv` and `r2e` are accepted from the original system and mean `docker`.',
    ),
    local_repo: described(z.string().min(1).optional(), 'A repository on the host used by the `local` backend instead of an image.'),
    base_commit: described(
      z
        .string()
        .regex(/^[0-9a-fA-F]{7,40}$/, 'use a commit hash of 7 to 40 hex digits')
        .optional(),
      "Commit the task starts from. Both backends check it out before anything runs and refuse a repository that lacks it. Without it the repository's HEAD is the base, which grades a copy at another commit against the wrong code.",
    ),
    network: described(z.boolean().default(false), 'Whether the sandbox may reach the network; off by default so runs are reproducible.'),
    r2e_ds_json: described(z.string().optional(), "Path to the R2E-Gym instance JSON; a relative path resolves against the JSONL file's folder."),
    requires_build: described(
      z.boolean().default(false),
      'The image is not pulled but built locally first (SWE-bench `sweb.eval.*` images); build-only images are left out of pre-pull manifests.',
    ),
    python_env: pythonEnv.optional(),
    swebench_spec: described(
      z.record(z.string(), z.unknown()).optional(),
      'SWE-bench harness spec (repo, version, arch, repo/env/eval script lists) used to build the image.',
    ),
    test_command: described(z.string().min(1).optional(), "Command that runs the task's tests inside `workdir`, e.g. `pytest -rA tests/test_x.py`."),
    resources: resources.optional(),
    image_recipe: imageRecipe.optional(),
  })
  .meta({ description: "Where the task's repository lives and how commands run there (a container image or a local working copy)." });

const failureFrame = z
  .strictObject({
    path: described(z.string().optional(), 'File of the innermost frame of the failing test, relative to the repository.'),
    lineno: described(z.int().min(0).optional(), 'Line number (1-based) of that frame.'),
    function: described(z.string().optional(), 'Function name of that frame.'),
  })
  .meta({ description: 'Where the failing test crashed; used to localise the bug. `func` and `line` are accepted as aliases.' });

const issue = z
  .strictObject({
    id: described(z.string().optional(), 'Issue identifier; part of the runtime issue id.'),
    title: described(z.string().optional(), 'One-line summary of the problem shown to the planner.'),
    body: described(z.string().optional(), 'Full problem statement shown to the planner.'),
    description: described(z.string().optional(), 'Alternative to `body` used by some converters.'),
    failure_frame: failureFrame.optional(),
    top_assert: described(z.string().optional(), 'The assertion that failed, as text.'),
    error_kind: described(z.string().optional(), 'Exception class or error category of the failure, e.g. `AssertionError`.'),
    path: described(z.string().optional(), 'A file the issue is about, relative to the repository.'),
  })
  .meta({ description: 'The problem the agent must fix: text for the planner and hints for localisation.' });

const penalty = (what: string) => described(z.number().min(0).optional(), `${what} Non-negative magnitude that is subtracted from the reward.`);

const testList = (what: string) =>
  described(
    z.union([
      z.array(z.string()).meta({ description: 'Test identifiers.' }),
      z
        .string()
        .regex(/^\s*\[[\s\S]*\]\s*$/)
        .meta({ description: 'A JSON-encoded list of test identifiers, as SWE-bench ships it.' }),
    ]),
    `${what} A list, or a JSON-encoded list string as SWE-bench ships it.`,
  );

const plan = described(
  z.union([
    z.string(),
    z
      .strictObject({
        text: described(z.string().optional(), 'The plan as text.'),
        plan_text: described(z.string().optional(), 'The plan as text (older converters).'),
        targets: described(z.array(z.unknown()).optional(), 'Code locations the plan targets.'),
      })
      .meta({ description: 'A plan with text and targets.' }),
  ]),
  'CGM environment: the repair plan, as text or as {text, targets}.',
);

/**
 * Why a task id cannot be used, or undefined. An id names files in the run folder and is shown in
 * terminals and the editor, so it must be one printable path segment: a `/` or `..` would write a
 * report outside its folder (over the run's own `report.json`), and a control character reaching a
 * terminal acts instead of printing (protocol/terminalText.ts).
 */
export function taskIdProblem(id: string): string | undefined {
  const control = firstControlCharacter(id);
  if (control !== undefined)
    return `A task id must be printable; this one holds the control character ${control.shown} at character ${control.index + 1}. Remove it.`;
  if (id === '.' || id === '..') return `A task id cannot be \`${id}\`: it names a folder, not a task. Give the task a name.`;
  const separator = /[/\\]/.exec(id);
  if (separator !== null)
    return `A task id is one path segment; this one holds \`${separator[0]}\` at character ${separator.index + 1}. Use another character, such as \`__\`.`;
  return undefined;
}

/**
 * A usable id close to `id` for a quick fix: control characters removed, each path separator
 * replaced with `__` (what SWE-bench uses between owner and repository); none for `.` and `..`.
 */
export function suggestedTaskId(id: string): string | undefined {
  let out = '';
  for (const char of id) if (firstControlCharacter(char) === undefined) out += char;
  out = out.replace(/[/\\]/g, '__');
  return out === '' || taskIdProblem(out) !== undefined ? undefined : out;
}

/** Printable, no separators, not `.` or `..`: the same rule as `taskIdProblem`, for JSON Schema readers. */
const taskIdPattern = `^(?!\\.{1,2}$)[^/\\\\${controlCharacterClass}]+$`;

const taskId = z
  .string()
  .min(1)
  .max(200)
  .superRefine((id, ctx) => {
    const problem = taskIdProblem(id);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'Unique identifier of the task; names episodes, trajectories, report folders and log lines, so it is one printable path segment (no control characters, `/` or `\\`, not `.` or `..`).',
    pattern: taskIdPattern,
  });

const verifier = z
  .strictObject({
    tests: described(
      z.string().min(1),
      "The folder holding the verifier's `test.sh` (a Harbor task's `tests/`); a relative path resolves against the JSONL file's folder. At submit it is placed at `/tests` (docker) or in the working copy's scratch folder with its absolute paths rewritten (local).",
    ),
    timeout_sec: described(
      timerSeconds().optional(),
      "Time `test.sh` may take (Harbor's `[verifier] timeout_sec`); replaces the config's `sandbox.test_timeout` for this task. A verifier that runs out of time cannot be graded.",
    ),
    env: described(
      z
        .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use a shell variable name: letters, digits and _, not starting with a digit'), z.string())
        .default({}),
      "Environment variables `test.sh` runs with (Harbor's `[verifier] env`).",
    ),
  })
  .meta({
    description:
      "Harbor grading: at submit `test.sh` runs and the reward it writes to `/logs/verifier/reward.json` or `reward.txt` is the episode's reward; a reward of 1 or more resolves the task. A verifier that writes no readable finite reward, or runs out of time, leaves the episode not gradable (never a zero).",
  });

export const taskEntrySchema = z
  .strictObject({
    task_id: taskId,
    sandbox: taskSandboxSchema,
    max_steps: described(z.int().min(1).optional(), 'Step limit for this task; the effective limit is min(task.max_steps, env.max_steps).'),
    episode_timeout: described(
      timerSeconds().optional(),
      "Time limit of one episode of this task in seconds; the effective limit is min(task.episode_timeout, env.episode_timeout). A converted Harbor task gets its agent's and verifier's timeouts added, since the episode's clock covers the submit's verification.",
    ),
    issue: issue.optional(),
    data_source: described(z.string().optional(), 'Dataset the task came from, e.g. `princeton-nlp/SWE-bench_Verified`.'),
    split: described(z.string().optional(), 'Split of that dataset, e.g. `test` or `train`.'),
    repo: described(z.string().optional(), 'Repository the task is about, e.g. `astropy/astropy`.'),
    language: described(z.string().optional(), 'Main programming language of the repository.'),
    reward_scale: described(z.number().positive().optional(), "Multiplier applied to this task's rewards."),
    failure_penalty: penalty('Penalty when the episode ends without a fix.'),
    step_penalty: penalty('Penalty for every step taken.'),
    timeout_penalty: penalty('Penalty when the episode hits its step or time limit.'),
    repo_op_limit: described(z.int().min(0).optional(), 'Maximum repository operations (reads, searches, expands) in one episode.'),
    enable_cgm_synthesis: described(z.boolean().optional(), 'Let CGM synthesise a patch when the planner asks for a repair.'),
    synthesis_strategy: described(z.string().optional(), 'How CGM synthesis picks its context.'),
    instruction: described(z.string().optional(), 'CGM environment: the instruction given to the patch model.'),
    plan: plan.optional(),
    snippets: described(z.array(z.unknown()).optional(), 'CGM environment: code snippets given to the patch model.'),
    graph: described(z.record(z.string(), z.unknown()).optional(), 'CGM environment: a precomputed code subgraph.'),
    anchors: described(z.array(z.unknown()).optional(), 'CGM environment: code anchors (files, symbols) to start from.'),
    FAIL_TO_PASS: testList('SWE-bench grading: tests that fail before the fix and must pass after it.').optional(),
    PASS_TO_PASS: testList('SWE-bench grading: tests that pass before the fix and must still pass after it.').optional(),
    expected_output_json: described(
      z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
      'R2E-Gym grading: the expected status of each test, as an object or a JSON string.',
    ),
    verifier: verifier.optional(),
    certification: described(
      certificationSchema.optional(),
      'Written by `gp dataset verify --out`: the task was verified (no patch does not resolve it, the gold patch resolves it fully, on every repeat); `removed_flaky` lists the tests left out of the lists because their outcome changed between identical runs.',
    ),
  })
  .meta({ description: 'One task: a repository in a sandbox, an issue to fix, and how the fix is graded.' });

/** A task after parsing: defaults filled in. */
export type TaskEntry = z.output<typeof taskEntrySchema>;
/** A task as written in a dataset file. */
export type TaskEntryInput = z.input<typeof taskEntrySchema>;

/** The JSON Schema of one dataset line, as written to `schemas/task.schema.json`. */
export function taskEntryJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(taskEntrySchema, { io: 'input' });
}
