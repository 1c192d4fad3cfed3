/**
 * No silent base: the ways a task's repository could be at the wrong commit, each of which used to
 * grade without a warning. A real git repository with two commits (the bug, then its fix) stands
 * for a project cloned at its newest commit; `gp task test` and `gp eval` run its task on the local
 * backend with real git and pytest.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, runGp, type GpResult } from '../support/cli.js';
import { validateLine } from '../../server/src/tasks/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-base-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const repo = join(dir, 'project');
let bugCommit = '';

function gp(...args: string[]): Promise<GpResult> {
  return runGp(dir, args);
}

function taskFile(name: string, sandbox: Record<string, unknown>): string {
  const task = {
    task_id: 'calc-add',
    sandbox: { workdir: '/testbed', backend: 'local', test_command: 'python3 -m pytest -rA tests/test_calc.py', ...sandbox },
    issue: { title: 'add() subtracts' },
    FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
    PASS_TO_PASS: [],
  };
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(task)}\n`);
  return path;
}

before(() => {
  mkdirSync(join(repo, 'tests'), { recursive: true });
  git(dir, 'init', '-q', repo);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(
    join(repo, 'tests', 'test_calc.py'),
    'import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\nfrom calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'the bug');
  bugCommit = git(repo, 'rev-parse', 'HEAD');
  // The project moves on: the newest commit has the fix, as a fresh clone of it would.
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  git(repo, 'commit', '-q', '-am', 'the fix');
});

describe('the task’s base commit', () => {
  test('a copy at a later commit is graded at the task’s base commit, not at its HEAD', async () => {
    const withBase = await gp(
      'task',
      'test',
      taskFile('with-base.jsonl', { local_repo: repo, base_commit: bugCommit }),
      '--run-dir',
      join(dir, 'run-with-base'),
    );
    assert.equal(withBase.code, 1, `${withBase.out}\n${withBase.err}`);
    assert.match(withBase.out, /RESOLVED_NO/, 'without a patch the bug is still there at the base commit');
    // The silent-wrong case this guards against: the same task without a base is graded at HEAD.
    const atHead = await gp('task', 'test', taskFile('no-base.jsonl', { local_repo: repo }), '--run-dir', join(dir, 'run-at-head'));
    assert.match(atHead.out, /RESOLVED_FULL/);
  });

  test('a copy without the base commit is refused, naming the commit and how to get it', async () => {
    const shallow = join(dir, 'shallow');
    git(dir, 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    const r = await gp('task', 'test', taskFile('shallow.jsonl', { local_repo: shallow, base_commit: bugCommit }), '--run-dir', join(dir, 'run-shallow'));
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`base commit ${bugCommit} \\(sandbox\\.base_commit\\) is not in ${shallow.replace(/[/.]/g, '\\$&')}, a shallow clone`));
    assert.match(r.err, /git fetch --unshallow/);
    assert.match(r.out, /0 tasks passed, 1 not/);
  });

  test('the docker backend checks the base commit out of the image’s repository too, and refuses one it lacks', async () => {
    const image = 'graph-planner/repoenv-sample:latest';
    const head = execFileSync('docker', ['run', '--rm', '--network', 'none', '--entrypoint', 'git', image, '-C', '/testbed', 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const sandbox = { docker_image: image, backend: 'docker', test_command: 'python -m pytest -rA tests/test_calc.py' };
    const task = (base: string) => {
      const path = join(dir, `docker-${base.slice(0, 8)}.jsonl`);
      writeFileSync(
        path,
        `${JSON.stringify({ task_id: 'sample-calc-add', sandbox: { workdir: '/testbed', ...sandbox, base_commit: base }, issue: { title: 'add' }, FAIL_TO_PASS: ['tests/test_calc.py::test_addition'], PASS_TO_PASS: ['tests/test_calc.py::test_multiplication'] })}\n`,
      );
      return path;
    };
    const atBase = await gp('task', 'test', task(head), '--run-dir', join(dir, 'run-docker-head'));
    assert.match(atBase.out, /RESOLVED_NO: FAIL_TO_PASS 0\/1 pass/, atBase.err);
    const missing = 'deadbeef'.repeat(5);
    const r = await gp('task', 'test', task(missing), '--run-dir', join(dir, 'run-docker-missing'));
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`base commit ${missing} \\(sandbox\\.base_commit\\) is not in graph-planner/repoenv-sample:latest:/testbed`));
    assert.match(r.err, /Build the image/);
  });

  test('gp eval fails when a task could not run, instead of reporting a rate over fewer tasks', async () => {
    const shallow = join(dir, 'shallow-eval');
    git(dir, 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    const good = JSON.parse(readFileSync(taskFile('eval-good.jsonl', { local_repo: repo, base_commit: bugCommit }), 'utf8')) as Record<string, unknown>;
    const broken = JSON.parse(readFileSync(taskFile('eval-broken.jsonl', { local_repo: shallow, base_commit: bugCommit }), 'utf8')) as Record<string, unknown>;
    const both = join(dir, 'eval.jsonl');
    writeFileSync(both, `${JSON.stringify({ ...good, task_id: 'calc-add-full' })}\n${JSON.stringify({ ...broken, task_id: 'calc-add-shallow' })}\n`);
    const r = await gp('eval', both, '--backend', 'local', '--run-dir', join(dir, 'run-eval'));
    assert.equal(r.code, 1, r.out);
    assert.match(r.err, /gp eval: 1 of 2 task\(s\) could not run: calc-add-shallow \(/);
    assert.match(r.out, /calc-add-full/, 'the task that could run was evaluated and reported');
  });

  test('the task schema takes sandbox.base_commit, where the sandbox’s errors say to put it', () => {
    const line = JSON.stringify({ task_id: 't', sandbox: { workdir: '/w', local_repo: '.', base_commit: bugCommit }, issue: { title: 'x' } });
    const good = validateLine(line);
    assert.equal(good.hasError, false, JSON.stringify(good.findings));
    const bad = validateLine(JSON.stringify({ task_id: 't', sandbox: { workdir: '/w', local_repo: '.', base_commit: 'main' }, issue: { title: 'x' } }));
    assert.ok(
      bad.findings.some((f) => f.severity === 'error' && /`sandbox\.base_commit` has the wrong form/.test(f.message)),
      JSON.stringify(bad.findings),
    );
  });

  test('gp task test of a file where no task can run fails, and never reports 0 of 0 as a pass', async () => {
    const path = join(dir, 'unreadable.jsonl');
    writeFileSync(path, `${JSON.stringify({ task_id: 't', sandbox: { workdir: '/w', local_repo: repo, base_commmit: bugCommit }, issue: { title: 'x' } })}\n`);
    const r = await gp('task', 'test', path, '--run-dir', join(dir, 'run-unreadable'));
    assert.equal(r.code, 1);
    assert.match(r.err, /no task of .*unreadable\.jsonl can run \(1 problem above\); nothing was tested/);
    assert.doesNotMatch(r.out, /0 tasks passed, 0 not/);
  });
});
