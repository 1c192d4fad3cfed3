/**
 * SWE-bench's specification tables (resources/swebench/specs.json) turned into python_env, on the
 * real entries of the repositories a user had to write by hand (issue: "Environments by hand").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cloneFileReaders } from '../../server/src/datasets/prepare.js';
import {
  condaToPip,
  mergeRequirements,
  pythonEnvFromTable,
  setupFromTable,
  swebenchSpecTable,
  type TableEnv,
} from '../../server/src/datasets/swebenchTable.js';

function env(repo: string, version: string, files: Record<string, string> = {}): TableEnv {
  const found = pythonEnvFromTable(repo, version, { commit: 'c0ffee', readFile: (_commit, path) => files[path] });
  assert.ok(found.ok, found.ok ? '' : found.message);
  return found.env;
}

test('the table records the swebench release it was generated from, its hash and its licence', () => {
  const table = swebenchSpecTable();
  assert.equal(table.swebench.version, '4.1.0');
  assert.match(table.swebench.sha256, /^[0-9a-f]{64}$/);
  assert.equal(table.swebench.license, 'MIT');
  for (const repo of [
    'sqlfluff/sqlfluff',
    'marshmallow-code/marshmallow',
    'pvlib/pvlib-python',
    'pylint-dev/astroid',
    'pyvista/pyvista',
    'pydicom/pydicom',
    'astropy/astropy',
    'scikit-learn/scikit-learn',
    'django/django',
    'sympy/sympy',
  ]) {
    assert.ok(Object.keys(table.repos[repo] ?? {}).length > 0, repo);
  }
});

test('sqlfluff reads requirements_dev.txt (and the file it includes) from the clone, and installs itself so its rules load through entry points', () => {
  const e = env('sqlfluff/sqlfluff', '0.6', {
    'requirements_dev.txt': '-r requirements.txt\n# tools\nflake8\npytest<8\n-e .\n',
    'requirements.txt': 'click>=7.1\ncolorama>=0.3\n',
  });
  assert.equal(e.python, '3.9');
  assert.deepEqual(e.packages, ['click>=7.1', 'colorama>=0.3', 'flake8', 'pytest<8', 'setuptools<82', 'wheel']);
  assert.deepEqual(e.setup, ['python -m pip install -e .']);
  assert.equal(e.requirementsFile, 'requirements_dev.txt');
  assert.equal(e.source, 'swebench==4.1.0 sqlfluff/sqlfluff 0.6');
});

test('without a clone, a requirements-file spec says which file at which commit it needs and how to give it', () => {
  const found = pythonEnvFromTable('sqlfluff/sqlfluff', '0.6', { commit: 'c0ffee' });
  assert.equal(found.ok, false);
  assert.match(
    found.ok ? '' : found.message,
    /requirements_dev\.txt at the instance's environment_setup_commit.*--repos DIR \(a folder named sqlfluff__sqlfluff\)/,
  );
  const absent = pythonEnvFromTable('sqlfluff/sqlfluff', '0.6', { commit: 'c0ffee', readFile: () => undefined });
  assert.match(absent.ok ? '' : absent.message, /has no requirements_dev\.txt at commit c0ffee/);
});

test('marshmallow has no packages but its own install with the dev extra, and gets setuptools and wheel as conda would', () => {
  const e = env('marshmallow-code/marshmallow', '3.0');
  assert.deepEqual(e.packages, ['setuptools<82', 'wheel']);
  assert.deepEqual(e.setup, ["python -m pip install -e '.[dev]'"]);
});

test('pvlib: conda packages then pip packages, install with the all extra', () => {
  const e = env('pvlib/pvlib-python', '0.8');
  assert.deepEqual(e.packages, ['pandas', 'scipy', 'jupyter', 'ipython', 'matplotlib', 'pytest', 'flake8', 'setuptools<82', 'wheel']);
  assert.deepEqual(e.setup, ['python -m pip install -e .[all]']);
});

test('astroid and pydicom take the spec’s Python and pins as given', () => {
  const astroid = env('pylint-dev/astroid', '2.10');
  assert.equal(astroid.python, '3.9');
  assert.deepEqual(astroid.packages, ['pytest', 'setuptools<82', 'wheel']);
  const pydicom = env('pydicom/pydicom', '2.3');
  assert.equal(pydicom.python, '3.10');
  assert.deepEqual(pydicom.packages, ['numpy', 'pytest', 'setuptools<82', 'wheel']);
  assert.deepEqual(pydicom.setup, ['python -m pip install -e .']);
});

test('pyvista: its apt-get step is not run, and says why, instead of being dropped', () => {
  const e = env('pyvista/pyvista', '0.43', { 'requirements_test.txt': 'pytest<8\nimageio\n' });
  assert.deepEqual(e.packages, ['pytest<8', 'imageio', 'setuptools<82', 'wheel']);
  assert.deepEqual(e.setup, ['python -m pip install -e .']);
  assert.equal(e.skipped.length, 1);
  assert.match(e.skipped[0] ?? '', /^apt-get update && apt-get install -y ffmpeg libsm6 libxext6 libxrender1 \(installs system packages \(needs root\)/);
});

test('astropy keeps its exact pins (setuptools==68.0.0 stays), and runs its pyproject edit before its compiled install', () => {
  const e = env('astropy/astropy', '5.2');
  assert.ok(e.packages.includes('pytest==7.4.0'));
  assert.ok(e.packages.includes('setuptools==68.0.0'));
  assert.ok(!e.packages.includes('setuptools<82'));
  assert.equal(e.setup.length, 2);
  assert.match(e.setup[0] ?? '', /^sed -i .*setuptools==68\.0\.0.* pyproject\.toml$/);
  assert.equal(e.setup[1], 'python -m pip install -e .[test] --verbose');
});

test('scikit-learn: a bare name after a pin keeps the pin, a bare setuptools gets the bound that keeps pkg_resources, and the build runs without isolation', () => {
  const e = env('scikit-learn/scikit-learn', '1.3');
  assert.deepEqual(e.packages, [
    'numpy==1.19.2',
    'scipy==1.5.2',
    'cython==3.0.10',
    'pytest',
    'pandas<2.0.0',
    'matplotlib<3.9.0',
    'setuptools<82',
    'joblib',
    'threadpoolctl',
    'wheel',
  ]);
  assert.deepEqual(e.setup, ['python -m pip install -v --no-use-pep517 --no-build-isolation -e .']);
});

test('django: requirements from tests/requirements/py3.txt; the locale steps need root and are listed as skipped', () => {
  const e = env('django/django', '3.0', { 'tests/requirements/py3.txt': 'asgiref >= 3.2\nargon2-cffi >= 16.1.0\n' });
  assert.equal(e.python, '3.6');
  assert.deepEqual(e.packages, ['asgiref >= 3.2', 'argon2-cffi >= 16.1.0', 'setuptools<82', 'wheel']);
  assert.deepEqual(e.setup, ['python -m pip install -e .']);
  const old = env('django/django', '1.9', { 'tests/requirements/py3.txt': 'pytz\n' });
  assert.deepEqual(old.setup, ['python setup.py install']);
  assert.equal(old.skipped.length, 3);
  assert.ok(old.skipped.every((s) => /needs root/.test(s)));
});

test('sympy: conda’s x=1.2 becomes pip’s x==1.2.*, and newer versions read requirements-dev.txt', () => {
  const e = env('sympy/sympy', '1.1');
  assert.deepEqual(e.packages, ['mpmath==1.3.0', 'flake8', 'flake8-comprehensions', 'setuptools<82', 'wheel']);
  assert.equal(condaToPip('numpy=1.19'), 'numpy==1.19.*');
  assert.equal(condaToPip('numpy==1.19.2'), 'numpy==1.19.2');
  const recent = env('sympy/sympy', '1.13', { 'requirements-dev.txt': 'mpmath\npytest\nhypothesis\n' });
  assert.deepEqual(recent.packages, ['mpmath==1.3.0', 'pytest', 'hypothesis', 'setuptools<82', 'wheel']);
});

test('a bare requirement never loosens an earlier pin, and a later pin replaces a bare name', () => {
  assert.deepEqual(mergeRequirements(['numpy==1.19.2', 'numpy', 'pytest', 'pytest<8', 'Foo_Bar>=1', 'foo-bar']), ['numpy==1.19.2', 'pytest<8', 'Foo_Bar>=1']);
});

test('environment.yml repositories, unknown repositories and versions say precisely what is missing', () => {
  const mpl = pythonEnvFromTable('matplotlib/matplotlib', '3.5');
  assert.equal(mpl.ok ? '' : mpl.code, 'conda-environment-file');
  assert.match(mpl.ok ? '' : mpl.message, /conda from the repository's environment\.yml/);
  const unknown = pythonEnvFromTable('nobody/nothing', '1.0');
  assert.equal(unknown.ok ? '' : unknown.code, 'unknown-repo');
  const version = pythonEnvFromTable('sqlfluff/sqlfluff', '9.9');
  assert.match(version.ok ? '' : version.message, /no version 9\.9 of sqlfluff\/sqlfluff \(they have 0\.4, /);
});

test('install steps alone, for environments that come from a harness spec or --env-specs', () => {
  assert.deepEqual(setupFromTable('pylint-dev/astroid', '2.10'), {
    setup: ['python -m pip install -e .'],
    skipped: [],
    source: 'swebench==4.1.0 pylint-dev/astroid 2.10',
  });
  assert.equal(setupFromTable('nobody/nothing', '1.0'), undefined);
});

test('requirement files are read from a clone under --repos at the given commit, not from its working tree', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-table-clone-'));
  const clone = join(dir, 'sqlfluff__sqlfluff');
  mkdirSync(clone);
  const git = (...args: string[]) => execFileSync('git', ['-C', clone, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' }).trim();
  git('init', '-q');
  writeFileSync(join(clone, 'requirements_dev.txt'), 'pytest<8\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'one');
  const first = git('rev-parse', 'HEAD');
  writeFileSync(join(clone, 'requirements_dev.txt'), 'pytest\n');
  git('commit', '-q', '-am', 'two');
  const reader = cloneFileReaders(dir)('sqlfluff/sqlfluff');
  assert.ok(reader !== undefined);
  const found = pythonEnvFromTable('sqlfluff/sqlfluff', '0.6', { commit: first, readFile: reader });
  assert.deepEqual(found.ok ? found.env.packages : [], ['pytest<8', 'setuptools<82', 'wheel']);
  assert.equal(cloneFileReaders(dir)('pylint-dev/astroid'), undefined);
});
