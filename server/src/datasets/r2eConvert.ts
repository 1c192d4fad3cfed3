/**
 * R2E-Gym rows → tasks (docs/original-system.md#g2-r2e-gym-conversion, docs/upstream-contracts.md#r2e-gym). The field fallbacks of the original
 * converter are kept, so rows of R2E-Gym-Lite, -Subset, -V1 and the wrapped `gym_config`/`ds`
 * shapes all convert. What changed, on purpose:
 * - ids come from the row's content (repository and fix commit), not its position, so changing
 *   the validation size never renames a task;
 * - the problem statement is what R2E-Gym shows its own agents (the text inside `[ISSUE]`), and a
 *   row without one is skipped rather than given a placeholder issue;
 * - the task carries what grading needs (the expected-output map, the image's test script) and
 *   nothing of the fix itself: `parsed_commit_content` is the gold change and stays out.
 */
import type { ConversionNote, InstanceFile } from '../protocol/datasetPrepare.js';
import { isBuildOnlyImageName } from '../tasks/index.js';
import type { TaskEntryInput } from '../tasks/index.js';
import { instanceRelativePath, skip, titleFromText, type Conversion, type ConvertContext } from './conversion.js';
import type { RowConverter } from './converters.js';
import { firstString, firstText, nonEmpty, positiveInt, stringList, valueAt, type Row } from './fields.js';
import { isRecord } from '../util/isRecord.js';
import { canonicalJson, safeId, sha256Hex } from './stableIds.js';

/** The original's task id fallbacks (docs/original-system.md#g2-r2e-gym-conversion), in order; R2E-Gym's own rows have none of them. */
const idPaths = [
  'task_id',
  'instance_id',
  'id',
  'task.task_id',
  'task.instance_id',
  'task.id',
  'gym_config.task_id',
  'gym_config.instance_id',
  'metadata.task_id',
  'metadata.instance_id',
  'metadata.id',
  'issue.id',
  'issue.issue_id',
  'problem.id',
  'problem.task_id',
  'ds.task.task_id',
  'ds.task.id',
  'task.metadata.task_id',
  'config.task_id',
  'ds.task_id',
  'ds.instance_id',
  'ds.id',
];

const imagePaths = ['gym_config.docker_image', 'gym_config.image_name', 'gym_config.docker.image', 'docker_image', 'image_name', 'ds.docker_image'];
const repoPaths = ['gym_config.repo_name', 'gym_config.repo', 'gym_config.repository', 'repo', 'repo_name', 'ds.repo', 'ds.repo_name'];
const commitPaths = ['commit_hash', 'gym_config.commit_hash', 'ds.commit_hash'];
const titlePaths = ['issue_title', 'task.title', 'issue.title'];
const bodyPaths = ['problem_statement', 'description', 'task.description', 'issue.body', 'ds.problem_statement'];
const expectedPaths = ['expected_output_json', 'gym_config.expected_output_json', 'ds.expected_output_json'];

/** The gym config is the row's `gym_config`, else its `ds`, else the row (docs/original-system.md#g2-r2e-gym-conversion). */
function normalise(row: Row): Row {
  const gym = isRecord(row['gym_config']) ? row['gym_config'] : isRecord(row['ds']) ? row['ds'] : undefined;
  return gym === undefined ? row : { ...row, gym_config: gym };
}

/**
 * The id: an explicit one when the row has it; else the repository and the fix commit, which
 * identify an R2E-Gym task; else a hash of the whole row.
 */
export function r2eTaskId(row: Row): string {
  const explicit = firstString(row, idPaths)?.value;
  if (explicit !== undefined) return explicit;
  const repo = firstString(row, repoPaths)?.value;
  const commit = firstString(row, commitPaths)?.value;
  if (commit !== undefined) return `${repo === undefined ? 'r2e' : safeId(repo.split('/').pop() ?? repo)}-${commit.slice(0, 12)}`;
  return `r2e-${sha256Hex(canonicalJson(row)).slice(0, 16)}`;
}

/** R2E-Gym's `get_task_instruction`: the text inside `[ISSUE] … [/ISSUE]` when present. */
export function issueText(statement: string): string {
  const m = /\[ISSUE\]([\s\S]*?)\[\/ISSUE\]/.exec(statement);
  return (m?.[1] ?? statement).trim();
}

/**
 * The image's own test script, as R2E-Gym's reward runs it (`run_tests.sh`, which calls pytest on
 * `r2e_tests`). R2E-Gym images keep the hidden tests at `/r2e_tests`; the script expects them in
 * the repository, so they are linked in and the link is excluded from git, keeping it out of the
 * patch under evaluation.
 */
export const r2eTestCommand =
  'if [ -d /r2e_tests ] && [ ! -e r2e_tests ]; then ln -s /r2e_tests r2e_tests && echo r2e_tests >> .git/info/exclude; fi\nbash run_tests.sh';

type Expected = { ok: true; map: Record<string, string> | undefined } | { ok: false; message: string };

function expectedOutput(row: Row): Expected {
  const raw = expectedPaths.map((p) => valueAt(row, p)).find((v) => v !== undefined && v !== null && v !== '');
  if (raw === undefined) return { ok: true, map: undefined };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { ok: false, message: `expected_output_json is not valid JSON (${(error as Error).message}).` };
    }
  }
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    return { ok: false, message: 'expected_output_json must map each test id to a status such as "PASSED".' };
  }
  return { ok: true, map: value as Record<string, string> };
}

/** Converts one R2E-Gym row. */
export function convertR2eRow(source: Row, convertContext: ConvertContext): Conversion {
  const row = normalise(source);
  const image = firstString(row, imagePaths)?.value;
  if (image === undefined) return skip('missing-image', `The row names no docker image (looked at ${imagePaths.join(', ')}).`);
  const statement = firstText(row, bodyPaths);
  if (statement === undefined) return skip('missing-problem-statement', `The row has no problem statement (looked at ${bodyPaths.join(', ')}).`);
  const expected = expectedOutput(row);
  if (!expected.ok) return skip('invalid-test-list', expected.message);

  const taskId = r2eTaskId(row);
  const id = safeId(taskId);
  if (id === '') return skip('missing-id', `The task id ${JSON.stringify(taskId)} has no usable characters.`);
  const notes: ConversionNote[] = [];
  const body = issueText(statement);
  let title = firstString(row, titlePaths)?.value;
  if (title === undefined) {
    title = titleFromText(body);
    notes.push('title-derived');
  }
  if (expected.map === undefined) notes.push('no-expected-output');
  const repo = firstString(row, repoPaths)?.value;
  const commit = firstString(row, commitPaths)?.value;
  const maxSteps =
    positiveInt(valueAt(row, 'max_steps')) ??
    positiveInt(valueAt(row, 'task.max_steps')) ??
    positiveInt(valueAt(row, 'gym_config.max_steps')) ??
    convertContext.maxSteps;
  const ownCommand = nonEmpty(valueAt(row, 'test_command')) ?? nonEmpty(valueAt(row, 'gym_config.test_command'));
  const testCommand = ownCommand ?? r2eTestCommand;
  const requiresBuild = isBuildOnlyImageName(image);
  const relevant = stringList(valueAt(row, 'relevant_files'));

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
      workdir: '/testbed',
      backend: 'docker',
      r2e_ds_json: instanceRelativePath(id),
      test_command: testCommand,
      ...(requiresBuild ? { requires_build: true } : {}),
    },
    ...(expected.map !== undefined ? { expected_output_json: expected.map } : {}),
  };
  const instance: InstanceFile = {
    schema: 'graph-planner/instance@1',
    task_id: id,
    kind: 'r2e-gym',
    source: { dataset: convertContext.dataset, split: convertContext.split, place: convertContext.place },
    docker_image: image,
    requires_build: requiresBuild,
    ...(repo !== undefined ? { repo } : {}),
    workdir: '/testbed',
    test_command: testCommand,
    ...(commit !== undefined ? { commit_hash: commit } : {}),
    ...(expected.map !== undefined ? { expected_output_json: expected.map } : {}),
    ...(relevant !== undefined ? { relevant_files: relevant } : {}),
  };
  return { kind: 'task', task, instance, notes };
}

/** R2E-Gym as `gp dataset prepare r2e-gym` reads it (`converters.ts`): the original's defaults (docs/original-system.md#g5-split-fallbacks), except the validation split, which is drawn by hash. */
export const r2eGymConverter: RowConverter = {
  kind: 'r2e-gym',
  source: 'rows',
  title: 'R2E-Gym',
  requiredColumns: [
    ['docker_image', 'image_name', 'gym_config', 'ds'],
    ['problem_statement', 'description', 'task', 'issue', 'ds'],
  ],
  defaults: { dataset: 'R2E-Gym/R2E-Gym-Lite', split: 'train', out: 'datasets/r2e_gym', splitRule: { kind: 'fraction', fraction: 0.1 } },
  convert: (row, convertContext) => convertR2eRow(row, convertContext),
};
