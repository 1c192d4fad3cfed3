/**
 * An environment of its day, for real: a small repository written in the style of 2023 (a
 * nose-style `setup` method, which pytest 8 no longer runs, and a `pyproject.toml` whose build
 * requirement `setuptools~=62.6` has no editable-install hook, with no `setup.py`, so only pip's
 * legacy `setup.py develop` can install it editable, which pip 25.3 removed). Its one task is
 * built and verified three times, as of three days, through `gp env build` and
 * `gp dataset verify` on the local backend, with pip, setuptools, pytest and the build backend
 * from the real package index:
 *
 * - as of 2023-09-06 (pytest 7.4, pip 23.2): the repository installs and the gold patch resolves,
 *   so the task is certified;
 * - as of 2024-06-01 (pytest 8.2, pip 24.0): it installs, but the PASS_TO_PASS test whose class
 *   relies on `setup` fails, so the gold patch "fails": the verdict an environment of the wrong day
 *   gives, which is why the day is recorded with the task;
 * - as of 2026-06-01 (pip 26): the repository's own install stops, and the task cannot run.
 *
 * The loopback index of a day (`sandbox/asOfIndex.ts`) is checked against the real index too.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { asOfIndex } from '../../server/src/sandbox/asOfIndex.js';
import { taskVerdictSchema, type TaskVerdict } from '../../server/src/protocol/verify.js';
import { git, runGp } from '../support/cli.js';

const root = join(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'gp-env-of-its-day-'));
const repo = join(dir, 'calc');
const envs = join(dir, 'envs');
const savedRoot = process.env['GP_PYTHON_ENVS'];
let baseCommit = '';

after(() => {
  if (savedRoot === undefined) delete process.env['GP_PYTHON_ENVS'];
  else process.env['GP_PYTHON_ENVS'] = savedRoot;
  rmSync(dir, { recursive: true, force: true });
});

const tests = `from calc import add, sub


class TestCalc:
    # nose-style: pytest runs \`setup\` before each test up to 7.x; pytest 8 removed it.
    def setup(self):
        self.tag = "calc"

    def test_add(self):
        assert self.tag == "calc"
        assert add(2, 3) == 5

    def test_sub(self):
        assert self.tag == "calc"
        assert sub(3, 2) == 1
`;

function gp(...args: string[]): ReturnType<typeof runGp> {
  return runGp(root, args);
}

/** The task as of `day`, in a dataset file of its own, with the gold patch beside it. */
function dataset(day: string, gold: string): string {
  const folder = join(dir, day);
  mkdirSync(folder, { recursive: true });
  const task = {
    task_id: `calc-${day}`,
    repo: 'example/calc',
    issue: { title: 'add() subtracts' },
    sandbox: {
      backend: 'local',
      workdir: '/testbed',
      local_repo: repo,
      base_commit: baseCommit,
      test_command: 'pytest -rA tests/test_calc.py',
      python_env: { python: 'python3', packages: ['pytest'], as_of: day, setup: ['python -m pip install -e .'] },
    },
    FAIL_TO_PASS: ['tests/test_calc.py::TestCalc::test_add'],
    PASS_TO_PASS: ['tests/test_calc.py::TestCalc::test_sub'],
  };
  const file = join(folder, 'tasks.jsonl');
  writeFileSync(file, `${JSON.stringify(task)}\n`);
  writeFileSync(join(folder, 'gold_predictions_tasks.jsonl'), `${JSON.stringify({ instance_id: task.task_id, model_patch: gold })}\n`);
  return file;
}

async function verdictAsOf(day: string, gold: string): Promise<{ verdict: TaskVerdict; out: string }> {
  const file = dataset(day, gold);
  const built = await gp('env', 'build', file);
  assert.equal(built.code, 0, `${built.out}\n${built.err}`);
  assert.match(built.out, new RegExp(`as of ${day} \\(python_env\\.as_of of its tasks\\), uv 0\\.13\\.9`));
  const runDir = join(dir, `verify-${day}`);
  const r = await gp('dataset', 'verify', file, '--backend', 'local', '--run-dir', runDir);
  const line = readFileSync(join(runDir, 'verdicts.jsonl'), 'utf8').trim().split('\n')[0] ?? '';
  return { verdict: taskVerdictSchema.parse(JSON.parse(line)), out: `${built.out}\n${r.out}\n${r.err}` };
}

let gold = '';

before(() => {
  process.env['GP_PYTHON_ENVS'] = envs;
  mkdirSync(join(repo, 'tests'), { recursive: true });
  git(dir, 'init', '-q', repo);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n');
  writeFileSync(join(repo, 'tests', 'test_calc.py'), tests);
  writeFileSync(join(repo, 'pyproject.toml'), '[build-system]\nrequires = ["setuptools~=62.6", "wheel~=0.37.1"]\nbuild-backend = "setuptools.build_meta"\n');
  writeFileSync(join(repo, 'setup.cfg'), '[metadata]\nname = calc\nversion = 0.1\n\n[options]\npy_modules = calc\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'calc, with add() subtracting');
  baseCommit = git(repo, 'rev-parse', 'HEAD');
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n');
  gold = `${git(repo, 'diff')}\n`;
  git(repo, 'checkout', '-q', '--', 'calc.py');
});

describe('an environment of its day', () => {
  test('the index as of a day lists only what was uploaded before it', async () => {
    const index = await asOfIndex('2023-09-06');
    const page = await (await fetch(`${index.url}/pluggy/`)).text();
    assert.match(page, />pluggy-1\.3\.0-py3-none-any\.whl</);
    // pluggy 1.4.0 was uploaded on 2024-01-24.
    assert.doesNotMatch(page, /pluggy-1\.4\.0/);
    assert.match(page, /href="https:\/\/files\.pythonhosted\.org\/[^"]+#sha256=[0-9a-f]{64}"/);
    const wrongToken = await fetch(index.url.replace(/\/[0-9a-f]{32}\//, '/0000/') + '/pluggy/');
    assert.equal(wrongToken.status, 404);
  });

  test('as of 2023-09-06 the repository installs with the pip of its day and the task is certified', async () => {
    const { verdict, out } = await verdictAsOf('2023-09-06', gold);
    assert.equal(verdict.status, 'certified', `${verdict.reason ?? ''}\n${out}`);
    assert.match(out, /pip 23\.2\.1, setuptools 68\.1\.2, wheel 0\.41\.2/);
    assert.match(out, / pytest==7\.4\.1 /);
    assert.match(verdict.environment ?? '', /^py3\d+-[0-9a-f]{16} \(Python 3\.\d+\.\d+, as of 2023-09-06, uv 0\.13\.9\)$/);
  });

  test('as of 2024-06-01 pytest 8 no longer runs the nose-style setup, and the verdict is gold-fails', async () => {
    const { verdict, out } = await verdictAsOf('2024-06-01', gold);
    assert.equal(verdict.status, 'gold-fails', `${verdict.reason ?? ''}\n${out}`);
    assert.deepEqual(verdict.failing, ['tests/test_calc.py::TestCalc::test_add', 'tests/test_calc.py::TestCalc::test_sub']);
    assert.match(out, / pytest==8\.2\.\d+ /);
  });

  test('as of 2026-06-01 the repository cannot be installed editable, and the task cannot run', async () => {
    const { verdict, out } = await verdictAsOf('2026-06-01', gold);
    assert.equal(verdict.status, 'cannot-run', `${verdict.reason ?? ''}\n${out}`);
    assert.match(verdict.reason ?? '', /python -m pip install -e \./);
    assert.match(verdict.reason ?? '', /build_editable/);
  });
});
