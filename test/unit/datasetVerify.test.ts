/**
 * `gp dataset verify` end to end on the local backend with real pytest runs: one small repository
 * and a task for every verdict (certified, flaky, gold-fails, empty-passes, gold-does-not-apply,
 * not-gradable, no-gold, cannot-run), `--repeat 2` to catch a test whose outcome changes between
 * identical runs, `--out` for the certified dataset (flaky test left out, paths moved), and a
 * resume that keeps the verdicts already written (a torn last line dropped).
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { taskVerdictSchema, type TaskVerdict } from '../../server/src/protocol/verify.js';
import { verdictOf } from '../../server/src/rollout/index.js';
import { loadTasks } from '../../server/src/tasks/index.js';
import { git, runGp } from '../support/cli.js';

// test_flaky below counts its runs in a file outside the repository, across sandboxes; under
// bubblewrap each sandbox has its own /tmp and the rest is read-only, so the count would start over
// and the test would never flake. This file is about verdicts, so the isolation is off for it
// (test/integration/localIsolation.test.ts tests the isolation).
process.env['GP_LOCAL_ISOLATION'] = 'off';

const root = mkdtempSync(join(tmpdir(), 'gp-verify-'));
after(() => rmSync(root, { recursive: true, force: true }));

// The repository: add subtracts (the bug), mul is right, and test_flaky passes on its first two
// runs of every four (a counter outside the repository), so two identical runs disagree.
const repo = join(root, 'repo');
mkdirSync(join(repo, 'tests'), { recursive: true });
writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n');
const counter = join(root, 'counter');
writeFileSync(
  join(repo, 'tests', 'test_calc.py'),
  [
    'import os',
    'from calc import add, mul',
    '',
    '',
    'def test_add():',
    '    assert add(2, 2) == 4',
    '',
    '',
    'def test_mul():',
    '    assert mul(2, 3) == 6',
    '',
    '',
    'def test_flaky():',
    `    path = ${JSON.stringify(counter)}`,
    '    n = int(open(path).read()) + 1 if os.path.exists(path) else 1',
    '    open(path, "w").write(str(n))',
    '    assert n % 4 in (1, 2)',
    '',
  ].join('\n'),
);
git(repo, 'init', '-q');
git(repo, 'add', '.');
git(repo, 'commit', '-qm', 'base');
const base = git(repo, 'rev-parse', 'HEAD');

/** The diff that turns calc.py into `text`, made by git as a gold patch is. */
function patchTo(text: string): string {
  writeFileSync(join(repo, 'calc.py'), text);
  const diff = `${git(repo, 'diff')}\n`;
  git(repo, 'checkout', '-q', 'calc.py');
  return diff;
}
const calc = readFileSync(join(repo, 'calc.py'), 'utf8');
const fixAdd = patchTo(calc.replace('a - b', 'a + b'));
const fixAddBreakMul = patchTo(calc.replace('a - b', 'a + b').replace('a * b', 'a + b'));
// A patch made against other code: its context does not match the base commit.
const stale = fixAdd.replaceAll('(a, b)', '(x, y)');

// Only the flaky task runs test_flaky, so the counter counts its runs alone.
const command = 'python3 -m pytest -rA -p no:cacheprovider tests/test_calc.py --deselect tests/test_calc.py::test_flaky';
function task(id: string, f2p: string[], p2p: string[], sandbox: Record<string, unknown> = {}): string {
  return JSON.stringify({
    task_id: id,
    issue: { title: id, body: '' },
    FAIL_TO_PASS: f2p.map((t) => `tests/test_calc.py::${t}`),
    PASS_TO_PASS: p2p.map((t) => `tests/test_calc.py::${t}`),
    sandbox: { workdir: '/testbed', backend: 'local', local_repo: '../repo', base_commit: base, test_command: command, ...sandbox },
  });
}

const data = join(root, 'data');
mkdirSync(data);
const dataset = join(data, 'tasks.jsonl');
writeFileSync(
  dataset,
  [
    task('certified', ['test_add'], ['test_mul']),
    task('gold-fails', ['test_add'], ['test_mul']),
    task('empty-passes', ['test_mul'], []),
    task('flaky', ['test_add'], ['test_mul', 'test_flaky'], { test_command: 'python3 -m pytest -rA -p no:cacheprovider tests/test_calc.py' }),
    task('stale-gold', ['test_add'], ['test_mul']),
    task('no-gold', ['test_add'], ['test_mul']),
    task('not-gradable', ['test_add'], [], { test_command: 'python3 -m pytest -rA -p no:cacheprovider tests/test_gone.py' }),
    task('cannot-run', ['test_add'], [], { local_repo: '../no-such-repo' }),
  ].join('\n') + '\n',
);
const predictions = {
  certified: fixAdd,
  'gold-fails': fixAddBreakMul,
  'empty-passes': fixAdd,
  flaky: fixAdd,
  'stale-gold': stale,
  'not-gradable': fixAdd,
  'cannot-run': fixAdd,
};
writeFileSync(
  join(data, 'gold_predictions_tasks.jsonl'),
  Object.entries(predictions)
    .map(([id, patch]) => JSON.stringify({ instance_id: id, model_name_or_path: 'gold', model_patch: patch }))
    .join('\n') + '\n',
);

function verdicts(runDir: string): Map<string, TaskVerdict> {
  const lines = readFileSync(join(runDir, 'verdicts.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return new Map(lines.map((l) => taskVerdictSchema.parse(JSON.parse(l))).map((v) => [v.task_id, v]));
}

const runDir = join(root, 'run');
const outFile = join(root, 'certified', 'tasks.jsonl');

test('a first verification of two tasks writes their verdicts; a torn last line is left behind by a crash', async () => {
  const r = await runGp(root, ['dataset', 'verify', dataset, '--task', 'certified', '--task', 'gold-fails', '--run-dir', runDir]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(r.out, /certified \(line 1\): certified \[empty RESOLVED_NO, gold RESOLVED_FULL/);
  assert.match(r.out, /gold-fails \(line 2\): gold-fails: 1 test\(s\) do not pass with the gold patch: tests\/test_calc\.py::test_mul/);
  appendFileSync(join(runDir, 'verdicts.jsonl'), '{"kind":"verdict","task_id":"flaky","li');
});

test('the whole dataset, resumed with --repeat 2 and --parallel 2: every verdict, and the certified dataset', async () => {
  const runsBefore = readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  const r = await runGp(root, ['dataset', 'verify', dataset, '--run-dir', runDir, '--repeat', '2', '--parallel', '2', '--out', outFile]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(r.out, /resuming: 2 of 8 tasks already have a verdict; 6 to run/);
  const v = verdicts(runDir);
  const status = Object.fromEntries([...v].map(([id, verdict]) => [id, verdict.status]));
  assert.deepEqual(status, {
    certified: 'certified',
    'gold-fails': 'gold-fails',
    'empty-passes': 'empty-passes',
    flaky: 'flaky',
    'stale-gold': 'gold-does-not-apply',
    'no-gold': 'no-gold',
    'not-gradable': 'not-gradable',
    'cannot-run': 'cannot-run',
  });
  assert.deepEqual(v.get('flaky')?.flaky, ['tests/test_calc.py::test_flaky']);
  assert.equal(v.get('flaky')?.runs.length, 4, 'two repeats of two runs');
  assert.match(v.get('not-gradable')?.reason ?? '', /not gradable: pytest could not start the run/);
  // The harness reads pytest's "ERROR: file or directory not found" as a result and would grade the run unresolved, so the verdict names our rule.
  assert.deepEqual(v.get('not-gradable')?.strictness, ['pytest-no-outcome']);
  assert.match(v.get('cannot-run')?.reason ?? '', /no-such-repo/);
  assert.equal(v.get('certified')?.runs.length, 2, 'the resumed verdict was not run again (one repeat)');
  // The runs already made were kept: the resume only added the six new tasks' runs.
  const runsAfter = readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  assert.equal(
    runsAfter - runsBefore,
    4 + 4 + 4 + 1,
    'empty-passes, flaky and not-gradable ran twice with each patch; the stale gold stopped after its first empty run',
  );

  const certified = await loadTasks(outFile);
  assert.deepEqual(certified.problems, []);
  assert.deepEqual(
    certified.tasks.map((t) => t.task.task_id),
    ['certified', 'flaky'],
  );
  const flaky = certified.tasks[1]?.task;
  assert.deepEqual(flaky?.PASS_TO_PASS, ['tests/test_calc.py::test_mul'], 'the flaky test is left out of grading');
  assert.deepEqual(flaky?.certification?.removed_flaky, ['tests/test_calc.py::test_flaky']);
  assert.equal(flaky?.certification?.status, 'flaky');
  assert.equal(flaky?.sandbox.local_repo, '../repo', 'the relative path still reaches the repository from the new folder');
  const summary = JSON.parse(readFileSync(join(runDir, 'verification.json'), 'utf8')) as { counts: Record<string, number> };
  assert.equal(summary.counts['certified'], 1);
  const state = JSON.parse(readFileSync(join(runDir, 'status.json'), 'utf8')) as { state: string; episodes: { total: number; resolved: number } };
  assert.equal(state.state, 'finished');
  assert.deepEqual([state.episodes.total, state.episodes.resolved], [8, 2]);
});

test('the certified dataset verifies again as certified', async () => {
  writeFileSync(
    join(root, 'certified', 'gold_predictions_tasks.jsonl'),
    [JSON.stringify({ instance_id: 'certified', model_patch: fixAdd }), JSON.stringify({ instance_id: 'flaky', model_patch: fixAdd })].join('\n') + '\n',
  );
  const r = await runGp(root, ['dataset', 'verify', outFile, '--run-dir', join(root, 'run2')]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /2 tasks verified \(2 certified\)/);
});

test('verdicts from grades: a test passing in one gold run and failing in another is flaky, not a failure of the fix', () => {
  const report = (f2pPass: boolean, p2pPass: boolean) => ({
    kind: 'swebench' as const,
    resolution: f2pPass && p2pPass ? ('RESOLVED_FULL' as const) : ('RESOLVED_NO' as const),
    report: {
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: f2pPass && p2pPass,
      tests_status: {
        FAIL_TO_PASS: { success: f2pPass ? ['f'] : [], failure: f2pPass ? [] : ['f'] },
        PASS_TO_PASS: { success: p2pPass ? ['p'] : [], failure: p2pPass ? [] : ['p'] },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
    },
  });
  const empty1 = { patch: 'empty' as const, repeat: 1, grade: report(false, true) };
  const gold1 = { patch: 'gold' as const, repeat: 1, grade: report(true, true) };
  const gold2 = { patch: 'gold' as const, repeat: 2, grade: report(true, false) };
  const runs = [empty1, gold1, { ...empty1, repeat: 2 }, gold2];
  assert.deepEqual(verdictOf(runs, ['f'], ['p']), {
    status: 'flaky',
    reason: '1 test(s) changed outcome between identical runs and are left out of grading: p',
    flaky: ['p'],
    failing: [],
    passing_without_fix: [],
  });
  assert.equal(verdictOf(runs.slice(0, 2), ['f'], ['p']).status, 'certified');
  assert.equal(verdictOf([empty1, { ...gold2, repeat: 1 }], ['f'], ['p']).status, 'gold-fails');
  assert.equal(verdictOf([{ ...gold1, patch: 'empty' }, gold1], ['f'], ['p']).status, 'empty-passes');
  assert.equal(
    verdictOf([empty1, { patch: 'gold', repeat: 1, grade: { kind: 'invalid', reason: 'pytest collected no tests' } }], ['f'], ['p']).status,
    'not-gradable',
  );
  // A run that only our strictness rule refused to grade says so in the verdict; one the harness refused as well names no rule.
  const refused = verdictOf([empty1, { patch: 'gold', repeat: 1, grade: { kind: 'invalid', reason: 'interrupted', rule: 'pytest-no-outcome' } }], ['f'], ['p']);
  assert.deepEqual([refused.status, refused.strictness], ['not-gradable', ['pytest-no-outcome']]);
  assert.equal(verdictOf([empty1, { patch: 'gold', repeat: 1, grade: { kind: 'invalid', reason: 'no markers' } }], ['f'], ['p']).strictness, undefined);
  const witnessed = verdictOf(
    [empty1, { ...gold2, repeat: 1, grade: { ...gold2.grade, harness: 'RESOLVED_FULL', strictness: ['junit-report'] } }],
    ['f'],
    ['p'],
  );
  assert.deepEqual([witnessed.status, witnessed.strictness], ['gold-fails', ['junit-report']]);
});

test('a gold-fails verdict says which failing tests never reached their body: ERROR in collection or setup, or not collected', () => {
  const report = (failure: string[]) => ({
    kind: 'swebench' as const,
    resolution: 'RESOLVED_NO' as const,
    report: {
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: false,
      tests_status: {
        FAIL_TO_PASS: { success: ['f'].filter((t) => !failure.includes(t)), failure: ['f'].filter((t) => failure.includes(t)) },
        PASS_TO_PASS: { success: ['p', 'q', 'r'].filter((t) => !failure.includes(t)), failure: ['p', 'q', 'r'].filter((t) => failure.includes(t)) },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
    },
  });
  const empty = {
    patch: 'empty' as const,
    repeat: 1,
    grade: report(['f']),
    tests: { f: 'FAILED' as const, p: 'PASSED' as const, q: 'PASSED' as const, r: 'PASSED' as const },
  };
  // p errors in a fixture's setup, q's module did not import (absent), r fails in its body.
  const gold = {
    patch: 'gold' as const,
    repeat: 1,
    grade: report(['p', 'q', 'r']),
    tests: { f: 'PASSED' as const, p: 'ERROR' as const, r: 'FAILED' as const },
  };
  const verdict = verdictOf([empty, gold], ['f'], ['p', 'q', 'r']);
  assert.equal(verdict.status, 'gold-fails');
  assert.deepEqual(verdict.errored_before_running, ['p', 'q']);
  assert.match(
    verdict.reason ?? '',
    /3 test\(s\) do not pass with the gold patch: p, q, r; of them, 1 errored in collection or setup \(ERROR\) and 1 is not in the log by name \(not collected, or skipped\): their bodies never ran/,
  );
  // Failures in the tests' bodies only: nothing is said about the phase.
  const inBody = verdictOf([empty, { ...gold, grade: report(['r']), tests: { f: 'PASSED', p: 'PASSED', q: 'PASSED', r: 'FAILED' } }], ['f'], ['p', 'q', 'r']);
  assert.equal(inBody.errored_before_running, undefined);
  assert.doesNotMatch(inBody.reason ?? '', /errored/);
});
