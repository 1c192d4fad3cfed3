import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Conversion } from '../../server/src/datasets/conversion.js';
import { convertR2eRow, issueText, r2eTaskId } from '../../server/src/datasets/r2eConvert.js';
import { convertSwebenchRow } from '../../server/src/datasets/swebenchConvert.js';
import { evalScript, parseEvalScript, swebenchImageName, testDirectives } from '../../server/src/datasets/swebenchSpecs.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { extractTestOutput, gradeTask } from '../../server/src/testing/index.js';
import { r2eShapedRows, swebenchLiteRows } from '../support/parquetFixtures.js';
import { fixtureJsonl, swebenchVerifiedFixture } from '../support/fixtures.js';
import { assertPythonModule } from '../support/hostTools.js';

const convertContext = { dataset: 'test/dataset', split: 'test', place: 'rows.jsonl:1' };

function converted(c: Conversion): Extract<Conversion, { kind: 'task' }> {
  if (c.kind !== 'task') assert.fail(`expected a task, got a skip: ${c.reason} ${c.message}`);
  return c;
}

function verifiedRows(): Record<string, unknown>[] {
  return fixtureJsonl(swebenchVerifiedFixture);
}

test('every SWE-bench Lite row converts to a valid task whose fields match the source, and the gold patch stays out of the task and the instance', () => {
  const rows = swebenchLiteRows();
  assert.equal(rows.length, 300);
  for (const row of rows) {
    const c = converted(convertSwebenchRow(row, convertContext));
    const id = row['instance_id'] as string;
    assert.equal(taskEntrySchema.safeParse(c.task).success, true, id);
    assert.equal(c.task.task_id, id);
    assert.equal(c.task.repo, row['repo']);
    assert.deepEqual(c.task.FAIL_TO_PASS, JSON.parse(row['FAIL_TO_PASS'] as string));
    assert.deepEqual(c.task.PASS_TO_PASS, JSON.parse(row['PASS_TO_PASS'] as string));
    assert.equal(c.task.issue?.body, (row['problem_statement'] as string).trim());
    assert.equal(c.task.issue?.title?.includes('\n'), false);
    assert.equal(c.task.sandbox.docker_image, `sweb.eval.x86_64.${id.toLowerCase()}:latest`);
    assert.equal(c.task.sandbox.requires_build, true);
    assert.equal(c.task.sandbox.workdir, '/testbed');
    assert.equal(c.instance.base_commit, row['base_commit']);
    // The task names it where the sandbox checks it out, so a local copy at another commit is refused.
    assert.equal(c.task.sandbox.base_commit, row['base_commit']);
    assert.equal(c.instance.test_patch, row['test_patch']);
    assert.equal(c.instance.version, row['version']);
    assert.equal(c.instance.environment_setup_commit, row['environment_setup_commit']);
    assert.equal(c.goldPatch, row['patch']);
    // The gold patch's added lines must appear nowhere an agent could read.
    const gold = row['patch'] as string;
    // The marker is the gold patch's longest added line that the issue and the test patch do not also contain.
    const visible = `${row['problem_statement'] as string}\n${row['test_patch'] as string}`;
    const added = gold.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++') && !visible.includes(l.slice(1).trim()));
    const marker = added.sort((a, b) => b.length - a.length)[0] ?? gold;
    assert.equal(JSON.stringify(c.task).includes(JSON.stringify(marker).slice(1, -1)), false, `${id}: gold line in the task`);
    assert.equal(JSON.stringify(c.instance).includes(JSON.stringify(marker).slice(1, -1)), false, `${id}: gold line in the instance`);
    // The test command runs the repository's tests on the test patch's files.
    assert.ok(
      c.task.sandbox.test_command?.includes(row['test_patch'] as string) || c.task.sandbox.test_command?.includes((row['test_patch'] as string).slice(0, -1)),
    );
    assert.ok(c.task.sandbox.test_command?.includes('>>>>> Start Test Output'));
  }
});

test("a Django test patch becomes dotted test modules, like SWE-bench's test directives", () => {
  const row = swebenchLiteRows().find((r) => r['instance_id'] === 'django__django-15202');
  assert.ok(row);
  assert.deepEqual(testDirectives('django/django', row['test_patch'] as string), ['forms_tests.field_tests.test_urlfield']);
  const c = converted(convertSwebenchRow(row, convertContext));
  assert.match(
    c.task.sandbox.test_command ?? '',
    /\.\/tests\/runtests\.py --verbosity 2 --settings=test_sqlite --parallel 1 forms_tests\.field_tests\.test_urlfield\n/,
  );
});

test('every original-format SWE-bench Verified row converts; the harness spec gives the test command, the test patch and the base commit', () => {
  const rows = verifiedRows();
  assert.equal(rows.length, 499);
  let replaced = 0;
  let withEnv = 0;
  for (const row of rows) {
    const c = converted(convertSwebenchRow(row, convertContext));
    assert.equal(taskEntrySchema.safeParse(c.task).success, true);
    const sandbox = row['sandbox'] as Record<string, unknown>;
    const spec = sandbox['swebench_spec'] as { eval_script_list: string[] };
    const lines = spec.eval_script_list;
    const start = lines.indexOf(": '>>>>> Start Test Output'");
    assert.ok(start > 0);
    assert.ok(c.task.sandbox.test_command?.includes(`\n${lines[start + 1] ?? 'missing'}\n`));
    const apply = lines.find((l) => l.startsWith('git apply')) ?? '';
    assert.ok(c.instance.test_patch !== undefined && apply.includes(c.instance.test_patch.slice(0, -1)));
    assert.equal(c.instance.base_commit, /git checkout ([0-9a-f]{40}) /.exec(lines.join('\n'))?.[1]);
    assert.equal(c.task.sandbox.docker_image, sandbox['docker_image']);
    assert.equal(c.task.sandbox.workdir, '/testbed');
    assert.ok(c.notes.includes('no-gold-lists'));
    if (c.notes.includes('workdir-replaced')) replaced++;
    // The spec's environment becomes python_env, unless it needs conda's environment.yml.
    const repo = (c.task.repo ?? '').toString();
    if (c.notes.includes('python-env-conda-only')) {
      assert.ok(['matplotlib/matplotlib', 'pydata/xarray'].includes(repo), repo);
      assert.equal(c.task.sandbox.python_env, undefined);
    } else {
      assert.match(c.task.sandbox.python_env?.python ?? '', /^3\.\d+$/, `${c.task.task_id}`);
      withEnv++;
    }
  }
  assert.equal(replaced, 499);
  assert.ok(withEnv > 400, `${withEnv} tasks got a python_env`);
});

test('an image namespace gives the pullable published name, which is not build-only', () => {
  const row = swebenchLiteRows()[0];
  assert.ok(row);
  const c = converted(convertSwebenchRow(row, convertContext, { imageNamespace: 'swebench' }));
  assert.equal(c.task.sandbox.docker_image, 'swebench/sweb.eval.x86_64.django_1776_django-15202:latest');
  assert.equal(c.task.sandbox.requires_build, undefined);
  assert.equal(swebenchImageName('Astropy__astropy-1'), 'sweb.eval.x86_64.astropy__astropy-1:latest');
});

test('SWE-bench rows without an id, without a statement or with a broken test list are skipped with the reason', () => {
  const row = swebenchLiteRows()[0] ?? {};
  const cases: [Record<string, unknown>, string][] = [
    [{ ...row, instance_id: undefined }, 'missing-id'],
    [{ ...row, instance_id: 42 }, 'missing-id'],
    [{ ...row, problem_statement: '  ' }, 'missing-problem-statement'],
    [{ ...row, FAIL_TO_PASS: '["a", ' }, 'invalid-test-list'],
    [{ ...row, PASS_TO_PASS: [1, 2] }, 'invalid-test-list'],
  ];
  for (const [bad, reason] of cases) {
    const c = convertSwebenchRow(bad, convertContext);
    assert.equal(c.kind, 'skip');
    if (c.kind === 'skip') assert.equal(c.reason, reason, c.message);
  }
});

test("R2E-Gym rows convert with the issue inside [ISSUE], the expected-output map, the image's test script and no trace of the fix", () => {
  for (const row of r2eShapedRows(40)) {
    const c = converted(convertR2eRow(row, { ...convertContext, dataset: 'R2E-Gym/R2E-Gym-Lite', split: 'train' }));
    assert.equal(taskEntrySchema.safeParse(c.task).success, true);
    assert.equal(c.task.sandbox.docker_image, row['docker_image']);
    assert.equal(c.task.repo, row['repo_name']);
    assert.equal(c.task.issue?.body, issueText(row['problem_statement'] as string));
    assert.equal(c.task.issue?.body?.includes('[ISSUE]'), false);
    assert.deepEqual(c.task.expected_output_json, JSON.parse(row['expected_output_json'] as string));
    assert.match(c.task.sandbox.test_command ?? '', /bash run_tests\.sh/);
    assert.equal(c.instance.commit_hash, row['commit_hash']);
    const fix = (row['parsed_commit_content'] as string).slice(0, 60);
    assert.equal(JSON.stringify(c.task).includes(fix), false);
    assert.equal(JSON.stringify(c.instance).includes(fix), false);
    assert.equal(c.task.max_steps, undefined);
  }
});

test("R2E-Gym ids come from the row's content: the same rows in another order, or fewer of them, keep their ids", () => {
  const rows = r2eShapedRows(30);
  const ids = rows.map((r) => r2eTaskId(r));
  assert.equal(new Set(ids).size, 30);
  const shuffled = [...rows].reverse().slice(5);
  assert.deepEqual(
    shuffled.map((r) => r2eTaskId(r)),
    [...ids].reverse().slice(5),
  );
  assert.match(ids[0] ?? '', /^pandas-[0-9a-f]{12}$/);
});

test('R2E-Gym field fallbacks: gym_config and ds wrappers, nested images, explicit ids, and rows without an image or statement are skipped', () => {
  const base = r2eShapedRows(1)[0] ?? {};
  const gym = converted(
    convertR2eRow({ gym_config: { task_id: 'gym-7', docker: { image: 'img:1' }, repo_name: 'numpy' }, problem_statement: 'Bug' }, convertContext),
  );
  assert.equal(gym.task.task_id, 'gym-7');
  assert.equal(gym.task.sandbox.docker_image, 'img:1');
  assert.equal(gym.task.repo, 'numpy');
  const ds = converted(
    convertR2eRow({ ds: { docker_image: 'img:2', repo: 'scrapy', problem_statement: 'Crash', commit_hash: 'abcdef0123456789' } }, convertContext),
  );
  assert.equal(ds.task.task_id, 'scrapy-abcdef012345');
  assert.equal(ds.task.issue?.title, 'Crash');
  assert.ok(ds.notes.includes('title-derived'));
  assert.ok(ds.notes.includes('no-expected-output'));
  const steps = converted(convertR2eRow({ ...base, max_steps: '12' }, convertContext));
  assert.equal(steps.task.max_steps, 12);
  const noImage = convertR2eRow({ ...base, docker_image: '' }, convertContext);
  assert.equal(noImage.kind === 'skip' && noImage.reason, 'missing-image');
  const noStatement = convertR2eRow({ ...base, problem_statement: undefined }, convertContext);
  assert.equal(noStatement.kind === 'skip' && noStatement.reason, 'missing-problem-statement');
  const badExpected = convertR2eRow({ ...base, expected_output_json: '{"a": ' }, convertContext);
  assert.equal(badExpected.kind === 'skip' && badExpected.reason, 'invalid-test-list');
});

test('the harness eval script is parsed back into its test command, test patch and base commit', () => {
  const patch = 'diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n';
  const parts = parseEvalScript([
    'cd /testbed',
    'git checkout 0123456789abcdef0123456789abcdef01234567 t.py',
    `git apply -v - <<'EOF_1'\n${patch}\nEOF_1`,
    ": '>>>>> Start Test Output'",
    'pytest -rA t.py',
    ": '>>>>> End Test Output'",
  ]);
  assert.deepEqual(parts, { testCommand: 'pytest -rA t.py', testPatch: `${patch}\n`, baseCommit: '0123456789abcdef0123456789abcdef01234567' });
});

/** A git repository with a bug, a test patch that adds the failing test, and the gold fix. */
function buggyRepo(): { dir: string; base: string; testPatch: string; gold: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gp-eval-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  git('init', '-q');
  git('config', 'user.email', 't@example.invalid');
  git('config', 'user.name', 'test');
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'calc.py'), 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n');
  writeFileSync(join(dir, 'tests', 'test_calc.py'), 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n');
  git('add', '-A');
  git('commit', '-qm', 'base');
  const base = git('rev-parse', 'HEAD');
  // The test patch changes the existing test file and adds a new one, as SWE-bench's often do.
  writeFileSync(
    join(dir, 'tests', 'test_calc.py'),
    'from calc import add, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  );
  writeFileSync(join(dir, 'tests', 'test_more.py'), 'from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 4) == 4\n');
  git('add', '-A');
  const testPatch = `${git('diff', '--cached')}\n`;
  git('reset', '-q', '--hard', base);
  writeFileSync(join(dir, 'calc.py'), 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n');
  const gold = `${git('diff')}\n`;
  git('checkout', '-q', '--', '.');
  return { dir, base, testPatch, gold };
}

test('the generated eval script applies the test patch, brackets the tests, restores the test files, and grades by F2P/P2P before and after the gold fix', () => {
  assertPythonModule('pytest', 'python3-pytest');
  const { dir, base, testPatch, gold } = buggyRepo();
  const task = converted(
    convertSwebenchRow(
      {
        instance_id: 'calc__calc-1',
        repo: 'calc/calc',
        base_commit: base,
        problem_statement: 'add() subtracts',
        test_patch: testPatch,
        patch: gold,
        docker_image: 'graph-planner/base:latest',
        FAIL_TO_PASS: JSON.stringify(['tests/test_calc.py::test_add', 'tests/test_more.py::test_add_zero']),
        PASS_TO_PASS: JSON.stringify(['tests/test_calc.py::test_mul']),
      },
      convertContext,
    ),
  ).task;
  const parsed = taskEntrySchema.parse(task);
  const script = evalScript({
    baseCommit: base,
    testPatch,
    testCommand: 'python3 -m pytest -rA -p no:cacheprovider tests/test_calc.py tests/test_more.py',
    conda: false,
  });
  const run = () => {
    const r = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    const output = `${r.stdout}${r.stderr}`;
    const bracketed = extractTestOutput(output);
    assert.equal(bracketed.ok, true, output);
    return {
      grade: gradeTask(parsed, { output, exitCode: r.status }, null),
      status: execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' }),
    };
  };
  const before = run();
  assert.equal(before.grade.kind === 'swebench' && before.grade.resolution, 'RESOLVED_NO');
  assert.equal(before.status, '', 'the test files are restored and the new one removed');
  execFileSync('git', ['apply', '-'], { cwd: dir, input: gold });
  const after = run();
  assert.equal(after.grade.kind === 'swebench' && after.grade.resolution, 'RESOLVED_FULL');
  assert.equal(after.status, ' M calc.py\n', 'only the fix is left in the working tree');
  // A test patch that no longer applies is marked, and such a log is not graded.
  const broken = evalScript({
    baseCommit: base,
    testPatch: testPatch.replace('assert mul(2, 3) == 6', 'assert mul(9, 9) == 6'),
    testCommand: 'true',
    conda: false,
  });
  const r = spawnSync('bash', ['-c', broken], { cwd: dir, encoding: 'utf8' });
  assert.equal(extractTestOutput(`${r.stdout}${r.stderr}`).ok, false);
});

test('SWE-bench Lite rows, which carry no harness spec, get the python_env of their repository and version from --env-specs rows', async () => {
  const { envSpecsFrom, envSpecKey } = await import('../../server/src/datasets/swebenchEnv.js');
  const { specDate } = await import('../../server/src/datasets/specDates.js');
  const specs = envSpecsFrom(verifiedRows());
  assert.ok(specs.size > 40, `${specs.size} environments`);
  const lite = swebenchLiteRows();
  let fromSpecs = 0;
  for (const row of lite) {
    const c = converted(convertSwebenchRow(row, convertContext, { envSpecs: specs, noSpecTable: true }));
    const known = specs.get(envSpecKey(String(row['repo']), String(row['version'])));
    if (known === undefined || known.incomplete !== undefined) {
      assert.equal(c.task.sandbox.python_env, undefined);
      continue;
    }
    fromSpecs++;
    assert.ok(c.notes.includes('python-env-from-specs'));
    // The day comes from the specification's own table entry (datasets/specDates.ts), whichever source gave the packages.
    const day = specDate(String(row['repo']), String(row['version'])).date;
    assert.deepEqual(c.task.sandbox.python_env, { ...(known.python === undefined ? {} : { python: known.python }), packages: known.packages, as_of: day });
  }
  assert.ok(fromSpecs > 150, `${fromSpecs} of ${lite.length} Lite rows got an environment`);
  // Without the specs or the tables a Lite row has none.
  assert.equal(converted(convertSwebenchRow(lite[0] ?? {}, convertContext, { noSpecTable: true })).task.sandbox.python_env, undefined);
});
