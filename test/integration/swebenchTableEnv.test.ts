/**
 * An environment from SWE-bench's specification tables, built for real, with the repository's own
 * install run on the local backend: astroid 2.10's entry (Python 3.9, pytest, the setuptools and
 * wheel conda brings, `python -m pip install -e .`) on a tiny local repository whose test needs
 * what only that install gives, an entry point (as sqlfluff loads its rules) and pkg_resources.
 * The shared environment comes from the package index and is cached in
 * ~/.cache/graph-planner/python-envs, so a second run only installs the tiny repository.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pythonEnvFromTable } from '../../server/src/datasets/swebenchTable.js';
import { envPaths, pythonEnvsRoot, resolvePythonEnv } from '../../server/src/sandbox/index.js';
import { git, runGp } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-table-env-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const files: Record<string, string> = {
  'pyproject.toml': `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "tinyplug"
version = "0.1"

[project.entry-points."tinyplug.rules"]
shout = "tinyplug.rules:shout"

[tool.setuptools]
packages = ["tinyplug"]
`,
  'tinyplug/__init__.py': '',
  'tinyplug/rules.py': 'def shout(text):\n    return text.upper()\n',
  'test_rules.py': `import os, sys
from importlib.metadata import entry_points

import pkg_resources  # conda's environments have it; a bare venv does not


def test_rules_load_through_entry_points():
    rules = [e for e in entry_points().get("tinyplug.rules", []) if e.name == "shout"]
    assert rules, "tinyplug's entry points are not installed"
    assert rules[0].load()("a") == "A"


def test_checkout_first_and_own_venv():
    import tinyplug
    assert os.path.dirname(os.path.dirname(os.path.abspath(tinyplug.__file__))) == os.getcwd(), tinyplug.__file__
    assert sys.prefix != sys.base_prefix
`,
};

test('a table environment builds, and the repository’s own install runs per working copy without touching the shared venv', async () => {
  const found = pythonEnvFromTable('pylint-dev/astroid', '2.10');
  assert.ok(found.ok);
  const repo = join(dir, 'tinyplug');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  writeFileSync(join(repo, '.gitignore'), '*.egg-info/\n__pycache__/\n');
  git(dir, 'init', '-q', repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'tinyplug');
  const base = git(repo, 'rev-parse', 'HEAD');
  const task = {
    task_id: 'tinyplug-1',
    repo: 'pylint-dev/astroid',
    data_source: 'SWE-bench/SWE-bench_Lite',
    sandbox: {
      workdir: '/testbed',
      backend: 'local',
      local_repo: repo,
      base_commit: base,
      test_command: 'pytest -rA test_rules.py',
      python_env: { python: found.env.python, packages: found.env.packages, setup: found.env.setup, source: found.env.source },
    },
    PASS_TO_PASS: ['test_rules.py::test_rules_load_through_entry_points', 'test_rules.py::test_checkout_first_and_own_venv'],
  };
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, `${JSON.stringify(task)}\n`);
  const built = await runGp(dir, ['env', 'build', file]);
  assert.equal(built.code, 0, `${built.out}\n${built.err}`);
  const run = await runGp(dir, ['task', 'test', file, '--run-dir', join(dir, 'run')]);
  assert.equal(run.code, 0, `${run.out}\n${run.err}`);
  assert.match(run.out, /RESOLVED_FULL/);
  // The install went into the working copy's own venv: the shared one holds no tinyplug.
  const key = (await resolvePythonEnv({ python: found.env.python, packages: found.env.packages })).key;
  const shared = envPaths(pythonEnvsRoot(), key).venv;
  const sites = readdirSync(join(shared, 'lib')).map((py) => join(shared, 'lib', py, 'site-packages'));
  assert.ok(
    sites.length > 0 && sites.every((site) => existsSync(site) && !readdirSync(site).some((name) => /tinyplug/i.test(name))),
    `tinyplug leaked into ${shared}`,
  );
  // Without the install, the entry point is missing and the same task is not resolved.
  const plain = { ...task, sandbox: { ...task.sandbox, python_env: { python: found.env.python, packages: found.env.packages } } };
  writeFileSync(file, `${JSON.stringify(plain)}\n`);
  const without = await runGp(dir, ['task', 'test', file, '--run-dir', join(dir, 'run-plain')]);
  assert.doesNotMatch(without.out, /RESOLVED_FULL/, `${without.out}\n${without.err}`);
});
