import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fixturePath, swebenchVerifiedFixture } from '../support/fixtures.js';
import {
  applyJsonEdits,
  normalizeTask,
  splitLines,
  taskEntryJsonSchema,
  taskEntrySchema,
  validateJsonl,
  validateLine,
  type LineFinding,
} from '../../server/src/tasks/index.js';
import { isValidTask } from '../../server/src/tasks/taskValidator.js';

const verified = fixturePath(swebenchVerifiedFixture);
const sampleTasks = 'datasets/sample/tasks.jsonl';
const legacyFlat = 'datasets/sample/legacy_flat.jsonl';

function only(findings: readonly LineFinding[], code: string): LineFinding {
  const hits = findings.filter((f) => f.code === code);
  assert.equal(hits.length, 1, `expected one ${code}, got ${JSON.stringify(findings.map((f) => f.code))}`);
  return hits[0] as LineFinding;
}

function codes(line: string): string[] {
  return validateLine(line).findings.map((f) => f.code);
}

const canonical = {
  task_id: 't-1',
  sandbox: { docker_image: 'graph-planner/repoenv-sample:latest', workdir: '/testbed' },
};

test('accepts the canonical sample tasks in both the zod schema and the compiled validator', () => {
  const lines = splitLines(readFileSync(sampleTasks, 'utf8'));
  assert.ok(lines.length >= 2);
  for (const line of lines) {
    const value: unknown = JSON.parse(line);
    assert.equal(taskEntrySchema.safeParse(value).success, true, line);
    assert.equal(isValidTask(value), true, line);
    assert.deepEqual(validateLine(line).findings, []);
  }
});

test('fills defaults when parsing a minimal task with zod', () => {
  const task = taskEntrySchema.parse(canonical);
  assert.equal(task.sandbox.backend, 'auto');
  assert.equal(task.sandbox.network, false);
  assert.deepEqual(task.sandbox.mounts, []);
});

test('validates every one of the 499 SWE-bench Verified rows without errors', () => {
  const text = readFileSync(verified, 'utf8');
  const report = validateJsonl(text);
  assert.equal(report.summary.lines, 499);
  assert.equal(report.summary.errors, 0, JSON.stringify(report.findings.find((f) => f.severity === 'error')));
  assert.equal(report.summary.tasks, 499);
  for (const line of splitLines(text)) {
    const parsed = taskEntrySchema.safeParse(normalizeTask(JSON.parse(line)).value);
    assert.equal(parsed.success, true, parsed.success ? '' : parsed.error.message);
  }
});

test('warns that SWE-bench rows point at /repo while their images keep the repository in /testbed', () => {
  const line = splitLines(readFileSync(verified, 'utf8'))[0] ?? '';
  const f = only(validateLine(line).findings, 'task/workdir-mismatch');
  assert.equal(f.severity, 'warning');
  assert.equal(line.slice(f.start, f.end), '"workdir"', 'the warning sits on the key it is about');
  const fixed = applyJsonEdits(JSON.parse(line), f.fixes[0]?.edits ?? []);
  assert.deepEqual(
    validateLine(JSON.stringify(fixed)).findings.map((x) => x.code),
    ['task/legacy-backend'],
  );
});

test('emits a JSON Schema that forbids unknown keys and describes every field', () => {
  const schema = taskEntryJsonSchema();
  assert.equal(schema['additionalProperties'], false);
  const properties = schema['properties'] as Record<string, Record<string, unknown>>;
  const sandbox = properties['sandbox'] as { properties: Record<string, Record<string, unknown>>; required: string[] };
  assert.ok(sandbox.required.includes('workdir'), 'workdir has no default, so it is required');
  assert.deepEqual(schema['required'], ['task_id', 'sandbox']);
  for (const [name, field] of [...Object.entries(properties), ...Object.entries(sandbox.properties)]) {
    assert.equal(typeof field['description'], 'string', `${name} has no description`);
  }
});

test('reports an unknown key as a warning with the closest known key and a rename fix', () => {
  const line = JSON.stringify({ ...canonical, max_step: 6 });
  const result = validateLine(line);
  const f = only(result.findings, 'task/unknown-key');
  assert.equal(f.severity, 'warning');
  assert.equal(result.hasError, false);
  assert.match(f.message, /did you mean `max_steps`/i);
  assert.equal(line.slice(f.start, f.end), '"max_step"');
  const fixed = applyJsonEdits(JSON.parse(line), f.fixes[0]?.edits ?? []);
  assert.deepEqual(fixed, { ...canonical, max_steps: 6 });
});

test('offers to move a sandbox key written at the top level into the sandbox', () => {
  const line = JSON.stringify({ task_id: 'a', sandbox: { docker_image: 'img' }, workdir: '/testbed' });
  const result = validateLine(line);
  const f = only(result.findings, 'task/unknown-key');
  assert.match(f.message, /sandbox\.workdir/);
  const fixed = applyJsonEdits(JSON.parse(line), f.fixes[0]?.edits ?? []);
  assert.equal(isValidTask(fixed), true);
});

test('normalises failure_frame aliases func and line and offers renames', () => {
  const row = { ...canonical, issue: { failure_frame: { path: 'app/calc.py', line: 5, func: 'add' } } };
  const normalized = normalizeTask(row);
  assert.deepEqual(normalized.value, { ...canonical, issue: { failure_frame: { path: 'app/calc.py', lineno: 5, function: 'add' } } });
  const line = JSON.stringify(row);
  const result = validateLine(line);
  assert.equal(result.hasError, false);
  const aliasFindings = result.findings.filter((f) => f.code === 'task/alias');
  assert.deepEqual(aliasFindings.map((f) => line.slice(f.start, f.end)).sort(), ['"func"', '"line"']);
  assert.ok(aliasFindings.every((f) => f.severity === 'info'));
  const fixed = aliasFindings.reduce<unknown>((v, f) => applyJsonEdits(v, f.fixes[0]?.edits ?? []), row);
  assert.deepEqual(validateLine(JSON.stringify(fixed)).findings, []);
});

test('reads the flat legacy row of the seed documents with a warning and a fix that rewrites it canonically', () => {
  const line = splitLines(readFileSync(legacyFlat, 'utf8'))[0] ?? '';
  const result = validateLine(line);
  // The seed's id, `R2E-Gym/R2E-Gym-Lite:train:00042`, is not one path segment: an error with a fix.
  assert.equal(result.hasError, true);
  assert.equal(result.kind, 'entry');
  const id = only(result.findings, 'task/schema');
  assert.equal(line.slice(id.start, id.end), '"task_id"');
  assert.match(id.message, /one path segment; this one holds `\/` at character 8/);
  assert.equal(id.fixes[0]?.title, 'Change the id to `R2E-Gym__R2E-Gym-Lite:train:00042`');
  const f = only(result.findings, 'task/legacy-shape');
  assert.equal(f.severity, 'warning');
  assert.equal(line.slice(f.start, f.end), '"instance"');
  assert.match(f.message, /commands\.build/);
  const edit = f.fixes[0]?.edits[0];
  assert.equal(edit?.op, 'replaceRoot');
  const value = applyJsonEdits(applyJsonEdits(JSON.parse(line), f.fixes[0]?.edits ?? []), [
    { op: 'set', path: ['task_id'], value: 'R2E-Gym__R2E-Gym-Lite:train:00042' },
  ]);
  const task = taskEntrySchema.parse(value);
  assert.equal(task.sandbox.docker_image, 'graph-planner/repoenv-sample:latest');
  assert.equal(task.sandbox.workdir, '/workspace');
  assert.equal(task.sandbox.test_command, 'pytest -k failing');
  assert.deepEqual(task.sandbox.mounts, [{ host: 'repo', container: '/workspace', mode: 'rw' }]);
  assert.deepEqual(task.sandbox.env, { PYTHONPATH: '.' });
  assert.equal(task.max_steps, 40);
  // What is left is the warning every host mount gets.
  assert.deepEqual(
    validateLine(JSON.stringify(value)).findings.map((x) => x.code),
    ['task/host-mount'],
  );
});

test('gives a legacy row without mounts the /repo workdir', () => {
  const normalized = normalizeTask({ task_id: 'x', docker_image: 'img', instance: { env: { A: 1 } } });
  const value = normalized.value as { sandbox: { workdir: string; env: Record<string, string> } };
  assert.equal(value.sandbox.workdir, '/repo');
  assert.deepEqual(value.sandbox.env, { A: '1' });
});

test('rejects a negative penalty and offers to flip its sign', () => {
  const line = JSON.stringify({ ...canonical, failure_penalty: -1 });
  const f = only(validateLine(line).findings, 'task/schema');
  assert.equal(f.severity, 'error');
  assert.match(f.message, /failure_penalty/);
  assert.equal(line.slice(f.start, f.end), '"failure_penalty"');
  assert.deepEqual(applyJsonEdits(JSON.parse(line), f.fixes[0]?.edits ?? []), { ...canonical, failure_penalty: 1 });
});

test('names the allowed backends and suggests the closest one', () => {
  const line = JSON.stringify({ ...canonical, sandbox: { ...canonical.sandbox, backend: 'dokcer' } });
  const f = only(validateLine(line).findings, 'task/schema');
  assert.match(f.message, /`sandbox\.backend` must be one of auto, docker, local/);
  assert.match(f.message, /did you mean `docker`/);
  assert.equal(line.slice(f.start, f.end), '"backend"');
});

test('reports only the fitting branch of a union (a bad mount mode, not every alternative)', () => {
  const line = JSON.stringify({ ...canonical, sandbox: { ...canonical.sandbox, mounts: [{ host: 'a', container: '/b', mode: 'rx' }] } });
  const errors = validateLine(line).findings.filter((f) => f.severity === 'error');
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.match(errors[0]?.message ?? '', /sandbox\.mounts\[0\]\.mode/);
});

test('accepts FAIL_TO_PASS as a list or as a JSON-encoded list, and rejects other strings', () => {
  assert.deepEqual(codes(JSON.stringify({ ...canonical, FAIL_TO_PASS: ['t::a'] })), []);
  assert.deepEqual(codes(JSON.stringify({ ...canonical, FAIL_TO_PASS: '["t::a"]' })), []);
  assert.deepEqual(codes(JSON.stringify({ ...canonical, FAIL_TO_PASS: 't::a' })), ['task/schema']);
});

test('suggests renaming instance_id when task_id is missing', () => {
  const line = JSON.stringify({ instance_id: 'x', sandbox: canonical.sandbox });
  const f = validateLine(line).findings.find((x) => x.code === 'task/schema');
  assert.match(f?.message ?? '', /Missing required field `task_id`.*instance_id/);
  assert.deepEqual(applyJsonEdits(JSON.parse(line), f?.fixes[0]?.edits ?? []), { task_id: 'x', sandbox: canonical.sandbox });
});

test('reports a missing image unless a local repository is given', () => {
  const line = JSON.stringify({ task_id: 'a', sandbox: { workdir: '/w' } });
  const f = only(validateLine(line).findings, 'task/missing-image');
  assert.equal(f.severity, 'error');
  assert.equal(line.slice(f.start, f.end), '"sandbox"');
  assert.deepEqual(codes(JSON.stringify({ task_id: 'a', sandbox: { workdir: '/w', local_repo: '/src/repo', backend: 'local' } })), []);
});

test('warns when a converted task graded from a local copy names no base commit, and not for our own samples', async () => {
  const { validateLine } = await import('../../server/src/tasks/index.js');
  const converted = {
    task_id: 'astroid-1',
    sandbox: { workdir: '/testbed', local_repo: '../astroid', swebench_spec: { repo: 'pylint-dev/astroid' } },
    issue: { title: 'x' },
    FAIL_TO_PASS: ['t'],
  };
  const codes = (value: unknown) => validateLine(JSON.stringify(value)).findings.map((f) => f.code);
  assert.ok(codes(converted).includes('task/no-base-commit'));
  assert.ok(!codes({ ...converted, sandbox: { ...converted.sandbox, base_commit: 'a1b2c3d' } }).includes('task/no-base-commit'));
  const sample = { task_id: 's', sandbox: { workdir: '/testbed', local_repo: '../repo' }, issue: { title: 'x' }, FAIL_TO_PASS: ['t'] };
  assert.ok(!codes(sample).includes('task/no-base-commit'), 'a plain folder is its own base');
});

test('warns when a SWE-bench task graded from a local copy names no python_env', async () => {
  const { validateLine } = await import('../../server/src/tasks/index.js');
  const task = {
    task_id: 'flask-1',
    sandbox: { workdir: '/testbed', local_repo: '../flask', base_commit: 'a1b2c3d', swebench_spec: { repo: 'pallets/flask' } },
    FAIL_TO_PASS: ['t'],
  };
  const codes = (value: unknown) => validateLine(JSON.stringify(value)).findings.map((f) => f.code);
  assert.ok(codes(task).includes('task/no-python-env'));
  assert.ok(!codes({ ...task, sandbox: { ...task.sandbox, python_env: { packages: ['pytest==7.4.0'] } } }).includes('task/no-python-env'));
  const { local_repo: _local, ...inImage } = task.sandbox;
  assert.ok(
    !codes({ ...task, sandbox: { ...inImage, docker_image: 'sweb.eval.x86_64.flask-1:latest' } }).includes('task/no-python-env'),
    'the image has its own environment',
  );
  const { swebench_spec: _spec, ...noSpec } = task.sandbox;
  assert.ok(
    codes({ ...task, data_source: 'princeton-nlp/SWE-bench_Lite', sandbox: noSpec }).includes('task/no-python-env'),
    'a Lite row has no spec but is a SWE-bench task',
  );
  assert.ok(!codes({ ...task, sandbox: noSpec }).includes('task/no-python-env'), 'a hand-written task is not warned');
});
