/**
 * SWE-bench rows → tasks (docs/original-system.md#g3-swe-bench-conversion, docs/upstream-contracts.md#swe-bench). Reads both SWE-bench's own rows
 * (Hugging Face columns: `instance_id`, `problem_statement`, `test_patch`, `FAIL_TO_PASS`…) and the
 * original system's converted rows (`task_id`, `issue`, `sandbox.swebench_spec`), so a user's old
 * files convert too. What changed from the original, on purpose:
 * - a row without an image gets SWE-bench's own instance image name instead of being skipped
 *   (the original skipped every row unless the Python `swebench` package was installed); the bare
 *   `sweb.eval.*` name is marked build-only and stays out of pulls;
 * - the working directory is `/testbed`, where SWE-bench images hold the repository (the
 *   original wrote `/repo`);
 * - the title is the first line of the issue, not the whole problem statement;
 * - the task's test command is SWE-bench's evaluation sequence (test patch in, tests between the
 *   markers, test files restored), so the grader of the sandbox issue grades it by F2P/P2P;
 * - the gold `patch` never enters the task or the instance file: it goes to a separate
 *   predictions file for evaluating the harness itself.
 */
import type { ConversionNote, InstanceFile } from '../protocol/datasetPrepare.js';
import { decodeTestList } from '../tasks/index.js';
import type { TaskEntryInput } from '../tasks/index.js';
import { instanceRelativePath, skip, titleFromText, type Conversion, type ConvertContext } from './conversion.js';
import type { RowConverter } from './converters.js';
import { firstString, firstText, nonEmpty, positiveInt, valueAt, type Row } from './fields.js';
import { isRecord } from '../util/isRecord.js';
import { safeId } from './stableIds.js';
import { evalScript, isBuildOnlyImageName, parseEvalScript, repoTestCommand, swebenchImageName, testDirectives } from './swebenchSpecs.js';
import { envSpecKey, pythonEnvFromSpec, type SpecPythonEnv } from './swebenchEnv.js';
import { specDate } from './specDates.js';
import { pythonEnvFromTable, setupFromTable, type RepoFileReader } from './swebenchTable.js';

const idPaths = ['instance_id', 'task_id', 'id'];
const imagePaths = [
  'docker_image',
  'image_name',
  'metadata.docker_image',
  'metadata.image_name',
  'environment.docker_image',
  'environment.image',
  'environment.image_name',
  'sandbox.docker_image',
];
const statementPaths = ['problem_statement', 'description', 'issue.body', 'issue.description'];

export interface SwebenchOptions {
  /** Registry namespace of published instance images (`swebench`); none means the locally built, build-only name. */
  readonly imageNamespace?: string;
  /** Environments by repository and version (`envSpecsFrom`), for rows without a harness spec; they win over the tables. */
  readonly envSpecs?: ReadonlyMap<string, SpecPythonEnv>;
  /** Files of a repository's local clone (`--repos`), for specifications that name the repository's requirements file. */
  readonly repoFiles?: (repo: string) => RepoFileReader | undefined;
  /** Leave SWE-bench's specification tables out (tests of the other sources). */
  readonly noSpecTable?: boolean;
}

type TaskPythonEnv = NonNullable<TaskEntryInput['sandbox']['python_env']>;

/**
 * The task's python_env and what is noted about it: from the row's own harness spec, else from
 * --env-specs, else from SWE-bench's specification tables (swebenchTable.ts). The repository's own
 * install and the steps that cannot run come from the tables in every case, since the other two
 * sources leave the install out.
 */
function taskPythonEnv(
  row: Row,
  spec: Record<string, unknown> | undefined,
  repo: string | undefined,
  version: string | undefined,
  options: SwebenchOptions,
): { env?: TaskPythonEnv; notes: ConversionNote[]; problem?: string } {
  const notes: ConversionNote[] = [];
  const fromSpecs = spec === undefined && repo !== undefined && version !== undefined ? options.envSpecs?.get(envSpecKey(repo, version)) : undefined;
  const given = pythonEnvFromSpec(spec) ?? fromSpecs;
  if (fromSpecs !== undefined) notes.push('python-env-from-specs');
  if (given?.incomplete !== undefined) notes.push('python-env-conda-only');
  let env: TaskPythonEnv | undefined;
  let problem: string | undefined;
  if (given !== undefined) {
    if (given.incomplete === undefined) env = { ...(given.python === undefined ? {} : { python: given.python }), packages: given.packages };
  } else if (repo !== undefined && version !== undefined && options.noSpecTable !== true) {
    const commit = nonEmpty(row['environment_setup_commit']) ?? nonEmpty(row['base_commit']);
    const readFile = options.repoFiles?.(repo);
    const found = pythonEnvFromTable(repo, version, { ...(commit === undefined ? {} : { commit }), ...(readFile === undefined ? {} : { readFile }) });
    if (found.ok) {
      env = { python: found.env.python, packages: found.env.packages, source: found.env.source };
      notes.push('python-env-from-table');
    } else {
      problem = found.message;
      notes.push('python-env-missing');
    }
  }
  // An environment of SWE-bench's specification resolves what it leaves unpinned as of the day the
  // harness built it (specDates.ts), so building it next year gives what the harness had.
  if (env !== undefined && repo !== undefined && version !== undefined) env = { ...env, as_of: specDate(repo, version).date };
  if (env === undefined || repo === undefined || version === undefined || options.noSpecTable === true)
    return { ...(env === undefined ? {} : { env }), notes, ...(problem === undefined ? {} : { problem }) };
  const steps = setupFromTable(repo, version);
  if (steps !== undefined) {
    if (steps.setup.length > 0) notes.push('python-env-setup');
    if (steps.skipped.length > 0) notes.push('python-env-steps-skipped');
    env = {
      ...env,
      ...(steps.setup.length > 0 ? { setup: steps.setup } : {}),
      ...(steps.skipped.length > 0 ? { skipped: steps.skipped } : {}),
      source: env.source ?? `${steps.source} (install steps only)`,
    };
  }
  return { env, notes };
}

function specOf(row: Row): Record<string, unknown> | undefined {
  const spec = valueAt(row, 'sandbox.swebench_spec') ?? valueAt(row, 'swebench_spec');
  return isRecord(spec) ? spec : undefined;
}

/** `environment_id` names an image directly when it has a `/`, else SWE-bench's registry path (docs/original-system.md#g3-swe-bench-conversion). */
function environmentImage(row: Row): string | undefined {
  const env = firstString(row, ['environment_id', 'environment.id', 'environment.name'])?.value;
  if (env === undefined) return undefined;
  return env.includes('/') ? env : `us-docker.pkg.dev/princeton-nlp/swe-bench/${env.replace(/__/g, '/')}`;
}

type Lists = { ok: true; f2p?: string[]; p2p?: string[] } | { ok: false; message: string };

function goldLists(row: Row): Lists {
  const out: { f2p?: string[]; p2p?: string[] } = {};
  for (const [key, field] of [
    ['f2p', 'FAIL_TO_PASS'],
    ['p2p', 'PASS_TO_PASS'],
  ] as const) {
    const raw = row[field];
    if (raw === undefined || raw === null) continue;
    const decoded = decodeTestList(raw, field);
    if (!decoded.ok) return { ok: false, message: decoded.message };
    out[key] = [...decoded.tests];
  }
  return { ok: true, ...out };
}

/** Converts one SWE-bench row. */
export function convertSwebenchRow(row: Row, convertContext: ConvertContext, options: SwebenchOptions = {}): Conversion {
  const rawId = idPaths.map((p) => valueAt(row, p)).find((v) => v !== undefined);
  if (typeof rawId !== 'string' || rawId.trim() === '') return skip('missing-id', 'The row has no string instance_id (or task_id, id).');
  const id = safeId(rawId.trim());
  if (id === '') return skip('missing-id', `The instance id ${JSON.stringify(rawId)} has no usable characters.`);
  const statement = firstText(row, statementPaths);
  if (statement === undefined) return skip('missing-problem-statement', `The row has no problem statement (looked at ${statementPaths.join(', ')}).`);
  const lists = goldLists(row);
  if (!lists.ok) return skip('invalid-test-list', lists.message);

  const notes: ConversionNote[] = [];
  const spec = specOf(row);
  const fromSpec = spec === undefined ? {} : parseEvalScript(Array.isArray(spec['eval_script_list']) ? spec['eval_script_list'] : []);
  const repo = nonEmpty(row['repo']) ?? nonEmpty(spec?.['repo']);
  const image =
    firstString(row, imagePaths)?.value ??
    environmentImage(row) ??
    swebenchImageName(id, options.imageNamespace === undefined ? {} : { namespace: options.imageNamespace });
  const requiresBuild = isBuildOnlyImageName(image) || valueAt(row, 'sandbox.requires_build') === true;
  const baseCommit = nonEmpty(row['base_commit']) ?? nonEmpty(row['commit']) ?? fromSpec.baseCommit;
  const testPatch = firstText(row, ['test_patch']) ?? fromSpec.testPatch;
  const version = nonEmpty(row['version']) ?? nonEmpty(spec?.['version']);
  const setupCommit = nonEmpty(row['environment_setup_commit']);

  let testCommand = fromSpec.testCommand;
  if (testCommand === undefined) {
    const known = repoTestCommand(repo);
    const directives = testPatch === undefined ? [] : testDirectives(repo ?? '', testPatch);
    testCommand = [known.command, ...directives].join(' ');
    notes.push(known.known ? 'test-command-derived' : 'test-command-default');
  }
  if (testPatch === undefined) notes.push('no-test-patch');
  if (lists.f2p === undefined && lists.p2p === undefined) notes.push('no-gold-lists');
  const goldPatch = firstText(row, ['patch']);
  if (goldPatch === undefined) notes.push('no-gold-patch');
  const workdir = '/testbed';
  const givenWorkdir = nonEmpty(valueAt(row, 'sandbox.workdir'));
  if (givenWorkdir !== undefined && givenWorkdir !== workdir) notes.push('workdir-replaced');
  // SWE-bench images keep the harness's conda environment; anything else runs the command as is.
  const conda = image.includes('sweb.eval.') || image.includes('swebench');
  const script = evalScript({ testCommand, conda, ...(baseCommit !== undefined ? { baseCommit } : {}), ...(testPatch !== undefined ? { testPatch } : {}) });

  // The environment SWE-bench's spec describes, so the local backend can grade in the same packages.
  const pythonEnv = taskPythonEnv(row, spec, repo, version, options);
  notes.push(...pythonEnv.notes);

  const body = statement.trim();
  const givenTitle = nonEmpty(row['title']) ?? nonEmpty(valueAt(row, 'issue.title'));
  // The original set the title to the whole problem statement; a title is one line.
  const title = givenTitle !== undefined && !givenTitle.includes('\n') ? givenTitle : titleFromText(body);
  if (title !== givenTitle) notes.push('title-derived');
  const maxSteps = positiveInt(row['max_steps']) ?? convertContext.maxSteps;

  const task: TaskEntryInput = {
    task_id: id,
    data_source: convertContext.dataset,
    split: convertContext.split,
    ...(repo !== undefined ? { repo } : {}),
    language: 'python',
    ...(maxSteps !== undefined ? { max_steps: maxSteps } : {}),
    issue: { id, title, body },
    sandbox: {
      docker_image: image,
      workdir,
      backend: 'docker',
      r2e_ds_json: instanceRelativePath(id),
      test_command: script,
      // The sandbox checks this commit out and refuses a repository without it, so a local copy at
      // another commit is never graded as the task's code.
      ...(baseCommit !== undefined && /^[0-9a-fA-F]{7,40}$/.test(baseCommit) ? { base_commit: baseCommit } : {}),
      ...(requiresBuild ? { requires_build: true } : {}),
      ...(pythonEnv.env === undefined ? {} : { python_env: pythonEnv.env }),
      ...(spec !== undefined ? { swebench_spec: spec } : {}),
    },
    ...(lists.f2p !== undefined ? { FAIL_TO_PASS: lists.f2p } : {}),
    ...(lists.p2p !== undefined ? { PASS_TO_PASS: lists.p2p } : {}),
  };
  const instance: InstanceFile = {
    schema: 'graph-planner/instance@1',
    task_id: id,
    kind: 'swebench',
    source: { dataset: convertContext.dataset, split: convertContext.split, place: convertContext.place },
    docker_image: image,
    requires_build: requiresBuild,
    ...(repo !== undefined ? { repo } : {}),
    workdir,
    test_command: script,
    ...(baseCommit !== undefined ? { base_commit: baseCommit } : {}),
    ...(version !== undefined ? { version } : {}),
    ...(setupCommit !== undefined ? { environment_setup_commit: setupCommit } : {}),
    ...(testPatch !== undefined ? { test_patch: testPatch, test_files: testDirectives('', testPatch) } : {}),
    ...(lists.f2p !== undefined ? { FAIL_TO_PASS: lists.f2p } : {}),
    ...(lists.p2p !== undefined ? { PASS_TO_PASS: lists.p2p } : {}),
    ...(spec !== undefined ? { swebench_spec: spec } : {}),
  };
  return {
    kind: 'task',
    task,
    instance,
    notes,
    ...(goldPatch !== undefined ? { goldPatch } : {}),
    ...(pythonEnv.problem === undefined ? {} : { envProblem: pythonEnv.problem }),
  };
}

/** SWE-bench as `gp dataset prepare swebench` reads it (`converters.ts`), with the original's defaults (docs/original-system.md#g5-split-fallbacks). */
export const swebenchConverter: RowConverter = {
  kind: 'swebench',
  source: 'rows',
  title: 'SWE-bench',
  requiredColumns: [
    ['instance_id', 'task_id', 'id'],
    ['problem_statement', 'description', 'issue'],
  ],
  defaults: { dataset: 'princeton-nlp/SWE-bench_Verified', split: 'test', out: 'datasets/swebench', splitRule: { kind: 'none' } },
  convert: (row, convertContext, { options, repoFiles }) =>
    convertSwebenchRow(row, convertContext, {
      ...(options.imageNamespace === undefined ? {} : { imageNamespace: options.imageNamespace }),
      ...(options.envSpecs === undefined ? {} : { envSpecs: options.envSpecs }),
      repoFiles,
    }),
};
