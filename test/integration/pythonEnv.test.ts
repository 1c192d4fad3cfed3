/**
 * Per-task Python environments, for real: `gp env build` installs two real packages pinned to old
 * versions (pytest 7.4.0, six 1.15.0) from the package index, and a real package's tests (six
 * 1.16.0's own suite, from its source distribution on the index, with a bug put in at the base
 * commit) are graded inside that environment on both backends.
 *
 * The task's extra test file, `test_env.py`, fails when the tests run with anything but the task's
 * environment: with the host's pytest (this machine's is another version), or with the installed
 * six 1.15.0 imported instead of the checkout (no PYTHONPATH). Those are the silent-wrong cases:
 * the same gold patch graded unresolved, or the wrong code graded.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, runGp, type GpResult } from '../support/cli.js';
import { dockerAvailable } from '../../server/src/sandbox/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-python-env-'));
const envs = join(dir, 'envs');
const repo = join(dir, 'six');
const image = 'graph-planner/test-six-env:latest';
let baseCommit = '';
const savedRoot = process.env['GP_PYTHON_ENVS'];

after(() => {
  if (savedRoot === undefined) delete process.env['GP_PYTHON_ENVS'];
  else process.env['GP_PYTHON_ENVS'] = savedRoot;
  rmSync(dir, { recursive: true, force: true });
});

function gp(...args: string[]): Promise<GpResult> {
  return runGp(dir, args);
}

const pins = ['pytest==7.4.0', 'six==1.15.0'];
/**
 * The day the environment resolves as of: pytest 7.4.0's own requirements (pluggy, iniconfig,
 * packaging) and the toolchain are unpinned, and each has releases after it, so what is installed
 * shows the day was applied (pluggy 1.3.0 was current then; 1.4.0 came on 2024-01-24).
 */
const asOf = '2023-09-06';

const testEnv = `import glob, os, sys, pytest, six

def test_environment():
    # The task's environment (a venv holding six 1.15.0) with its pytest, and the checkout's six
    # imported ahead of the installed one.
    assert pytest.__version__ == "7.4.0", pytest.__version__
    assert sys.prefix != sys.base_prefix, sys.prefix
    assert glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "six-1.15.0.dist-info"))
    assert six.__version__ == "1.16.0", six.__file__
    assert os.path.dirname(os.path.abspath(six.__file__)) == os.getcwd(), six.__file__
`;

function taskFile(name: string, sandbox: Record<string, unknown>): string {
  const task = {
    task_id: 'six-b',
    repo: 'benjaminp/six',
    sandbox: { workdir: '/testbed', local_repo: repo, base_commit: baseCommit, test_command: 'pytest -rA test_six.py test_env.py', ...sandbox },
    issue: { title: 'six.b() encodes as UTF-8 instead of Latin-1' },
    FAIL_TO_PASS: ['test_six.py::test_b'],
    PASS_TO_PASS: ['test_env.py::test_environment', 'test_six.py::test_u', 'test_six.py::test_with_metaclass'],
  };
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(task)}\n`);
  return path;
}

const gold = join(dir, 'gold.diff');

before(() => {
  process.env['GP_PYTHON_ENVS'] = envs;
  // The real package from the real index: six 1.16.0's source distribution.
  execFileSync('python3', ['-m', 'pip', 'download', '--no-deps', '--no-binary', ':all:', '--dest', dir, 'six==1.16.0'], { stdio: 'pipe' });
  execFileSync('tar', ['--no-same-owner', '-xzf', join(dir, 'six-1.16.0.tar.gz'), '-C', dir]);
  execFileSync('mv', [join(dir, 'six-1.16.0'), repo]);
  writeFileSync(join(repo, 'test_env.py'), testEnv);
  git(dir, 'init', '-q', repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'six 1.16.0');
  const source = readFileSync(join(repo, 'six.py'), 'utf8');
  assert.ok(source.includes('return s.encode("latin-1")'));
  writeFileSync(join(repo, 'six.py'), source.replace('return s.encode("latin-1")', 'return s.encode("utf-8")'));
  git(repo, 'commit', '-q', '-am', 'the bug');
  baseCommit = git(repo, 'rev-parse', 'HEAD');
  writeFileSync(gold, git(repo, 'diff', 'HEAD', 'HEAD~1') + '\n');
});

describe('per-task Python environments', () => {
  test('gp env build installs the pinned packages from the index once per specification, then reuses them', async () => {
    const file = taskFile('tasks.jsonl', { backend: 'local', python_env: { packages: pins, as_of: asOf } });
    const first = await gp('env', 'build', file);
    assert.equal(first.code, 0, `${first.out}\n${first.err}`);
    assert.match(
      first.out,
      /\(1 task\): built in \d+\.\d s, Python 3\.\d+\.\d+ \(.*\), as of 2023-09-06 \(python_env\.as_of of its tasks\), uv 0\.13\.9; pip 23\.2\.1, setuptools 68\.1\.2, wheel 0\.41\.2/,
    );
    assert.match(first.out, /^ {2}\d+ installed: .*\bpytest==7\.4\.0\b/m);
    const record = JSON.parse(readFileSync(join(envs, readKey(first.out), 'gp-env.json'), 'utf8')) as {
      installed: string[];
      asOf: string;
      resolver: string;
      toolchain: Record<string, string>;
    };
    assert.ok(record.installed.includes('pytest==7.4.0'), record.installed.join(' '));
    assert.ok(record.installed.includes('six==1.15.0'));
    // Unpinned, and newer releases exist: the day decides.
    assert.ok(record.installed.includes('pluggy==1.3.0'), record.installed.join(' '));
    assert.ok(record.installed.includes('iniconfig==2.0.0'), record.installed.join(' '));
    assert.equal(record.asOf, asOf);
    assert.equal(record.resolver, 'uv 0.13.9');
    assert.deepEqual(record.toolchain, { pip: '23.2.1', setuptools: '68.1.2', wheel: '0.41.2' });
    const second = await gp('env', 'build', file);
    assert.equal(second.code, 0);
    assert.match(second.out, /already built \(\d\.\d\d s to find/);
  });

  test('on the local backend the tests run in the environment, with the checkout first on PYTHONPATH', async () => {
    const file = taskFile('tasks.jsonl', { backend: 'local', python_env: { packages: pins, as_of: asOf } });
    const without = await gp('task', 'test', file, '--run-dir', join(dir, 'run-no-patch'));
    assert.equal(without.code, 1, `${without.out}\n${without.err}`);
    assert.match(without.out, /RESOLVED_NO/);
    const fixed = await gp('task', 'test', file, '--patch', gold, '--run-dir', join(dir, 'run-gold'));
    assert.equal(fixed.code, 0, `${fixed.out}\n${fixed.err}`);
    assert.match(fixed.out, /RESOLVED_FULL/);
  });

  test("a link to the environment's interpreter from another folder still runs with its packages, as tox-current-env starts the tests", async () => {
    // tox-current-env links .tox/<env>/bin/python to the interpreter tox runs under; Python started
    // through such a link finds no pyvenv.cfg beside it and starts as the bare base interpreter.
    const file = taskFile('linked.jsonl', {
      backend: 'local',
      python_env: { packages: pins, as_of: asOf },
      test_command: 'mkdir -p .tox/py/bin && ln -sf "$(command -v python)" .tox/py/bin/python && .tox/py/bin/python -m pytest -rA test_six.py',
    });
    // test_env.py is left out (it checks that the interpreter is the venv's, which a link's is not).
    const fixed = await gp('task', 'test', file, '--patch', gold, '--run-dir', join(dir, 'run-linked'));
    const record = readFileSync(join(dir, 'run-linked', 'test_runs.jsonl'), 'utf8');
    const logPath = (JSON.parse(record.trim().split('\n').pop() ?? '{}') as { logPath?: string }).logPath ?? '';
    const log = readFileSync(join(dir, 'run-linked', logPath), 'utf8');
    assert.match(log, /pytest-7\.4\.0/, `${fixed.out}\n${fixed.err}\n${log}`);
    assert.match(log, /PASSED test_six\.py::test_b\b/);
  });

  test('without the environment the host’s tools grade the same gold patch differently, which is why a task names one', async () => {
    const hostPytest = execFileSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).trim();
    if (/\b7\.4\.0\b/.test(hostPytest)) assert.fail(`this machine's own pytest is 7.4.0 (${hostPytest}); the regression needs a host pytest that differs`);
    const file = taskFile('host.jsonl', { backend: 'local', test_command: 'python3 -m pytest -rA test_six.py test_env.py' });
    const r = await gp('task', 'test', file, '--patch', gold, '--run-dir', join(dir, 'run-host'));
    assert.equal(r.code, 1, `${r.out}\n${r.err}`);
    assert.doesNotMatch(r.out, /RESOLVED_FULL/);
  });

  test('a task whose environment is not built is refused, with the command that builds it', async () => {
    process.env['GP_PYTHON_ENVS'] = join(dir, 'empty-envs');
    try {
      const file = taskFile('unbuilt.jsonl', { backend: 'local', python_env: { packages: pins, as_of: asOf } });
      const r = await gp('task', 'test', file, '--run-dir', join(dir, 'run-unbuilt'));
      assert.equal(r.code, 1);
      assert.match(
        r.err,
        /Python environment of task six-b \(py3\d+-[0-9a-f]{16}: Python 3\.\d+\.\d+, 2 package\(s\)\) is not built in .*empty-envs\. Build it with `gp env build TASKS\.jsonl`/,
      );
    } finally {
      process.env['GP_PYTHON_ENVS'] = envs;
    }
  });

  test('an interpreter that is not on this machine is named, with what to do', async () => {
    const file = taskFile('no-python.jsonl', { backend: 'local', python_env: { python: '2.1', packages: pins, as_of: asOf } });
    const r = await gp('env', 'build', file);
    assert.equal(r.code, 1);
    assert.match(r.err, /six-b: No Python interpreter for python_env\.python "2\.1" on this machine \(tried python2\.1\)\. Install that Python/);
  });

  test('gp env build --docker builds the environment image from the same wheels and the task image, graded in a container', async (t) => {
    if (!(await dockerAvailable())) assert.fail('Docker is not reachable: the integration layer needs dockerd (bash test/integration/setup.sh starts it)');
    const file = taskFile('docker.jsonl', { backend: 'docker', docker_image: image, python_env: { packages: pins, as_of: asOf } });
    t.after(() => {
      try {
        execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    });
    const built = await gp('env', 'build', file, '--docker');
    assert.equal(built.code, 0, `${built.out}\n${built.err}`);
    assert.match(built.out, /graph-planner\/pyenv:py3\d+-[0-9a-f]{16}: (built|up-to-date)/);
    assert.match(built.out, new RegExp(`${image.replace(/[/.]/g, '\\$&')} \\(six-b\\): built`));
    const without = await gp('task', 'test', file, '--run-dir', join(dir, 'run-docker-no-patch'));
    assert.equal(without.code, 1, `${without.out}\n${without.err}`);
    assert.match(without.out, /RESOLVED_NO/);
    const fixed = await gp('task', 'test', file, '--patch', gold, '--run-dir', join(dir, 'run-docker-gold'));
    assert.equal(fixed.code, 0, `${fixed.out}\n${fixed.err}`);
    assert.match(fixed.out, /RESOLVED_FULL/);
    assert.ok(existsSync(join(dir, 'run-docker-gold')));
  });
});

function readKey(out: string): string {
  const key = /(py3\d+-[0-9a-f]{16})/.exec(out)?.[1];
  assert.ok(key !== undefined, out);
  return key;
}
