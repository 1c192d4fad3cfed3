/**
 * The parts of a task's Python environment that need no package index: which interpreter a request
 * names, the key of a specification, the folders put on PYTHONPATH and the variables a command
 * gets (sandbox/pythonEnv.ts). Building from the index is in test/integration/pythonEnv.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findInterpreter, hasSrcLayout, pythonEnvVariables, pythonPathFolders, resolvePythonEnv } from '../../server/src/sandbox/pythonEnv.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-pyenv-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the key depends on the exact Python, the packages and the requirements file, nothing else', async () => {
  const a = await resolvePythonEnv({ python: 'python3', packages: ['pytest==7.4.0'] });
  const again = await resolvePythonEnv({ python: 'python3', packages: ['pytest==7.4.0'] });
  const other = await resolvePythonEnv({ python: 'python3', packages: ['pytest==7.3.0'] });
  assert.match(a.key, /^py3\d+-[0-9a-f]{16}$/);
  assert.equal(a.key, again.key);
  assert.notEqual(a.key, other.key);
  const requirements = join(dir, 'requirements.txt');
  writeFileSync(requirements, 'six==1.15.0\n');
  const withFile = await resolvePythonEnv({ python: 'python3', packages: ['pytest==7.4.0'], requirements });
  writeFileSync(requirements, 'six==1.16.0\n');
  const changed = await resolvePythonEnv({ python: 'python3', packages: ['pytest==7.4.0'], requirements });
  assert.notEqual(withFile.key, a.key);
  assert.notEqual(withFile.key, changed.key, 'editing the requirements file makes another environment');
});

test('a version is found as pythonX.Y and must report that version; a missing one names what was tried', async () => {
  const host = await findInterpreter('python3');
  const minor = host.version.split('.').slice(0, 2).join('.');
  const found = await findInterpreter(minor);
  assert.ok(found.version.startsWith(`${minor}.`), found.version);
  await assert.rejects(findInterpreter('9.9'), /No Python interpreter for python_env\.python "9\.9" on this machine \(tried python9\.9\)/);
  await assert.rejects(findInterpreter('/nowhere/python'), /tried \/nowhere\/python/);
  await assert.rejects(
    resolvePythonEnv({ python: 'python3', packages: [], requirements: join(dir, 'missing.txt') }),
    /Cannot read python_env\.requirements .*missing\.txt/,
  );
});

test('a src layout puts src first on PYTHONPATH, a flat one the root, and the task can say otherwise', () => {
  const flat = join(dir, 'flat');
  const src = join(dir, 'srclayout');
  mkdirSync(join(flat, 'pkg'), { recursive: true });
  writeFileSync(join(flat, 'pkg', '__init__.py'), '');
  mkdirSync(join(src, 'src', 'pkg'), { recursive: true });
  writeFileSync(join(src, 'src', 'pkg', '__init__.py'), '');
  assert.equal(hasSrcLayout(flat), false);
  assert.equal(hasSrcLayout(src), true);
  assert.deepEqual(pythonPathFolders({ python: 'python3', packages: [] }, flat), ['.']);
  assert.deepEqual(pythonPathFolders({ python: 'python3', packages: [] }, src), ['src']);
  assert.deepEqual(pythonPathFolders({ python: 'python3', packages: [], pythonpath: ['lib', '.'] }, src), ['lib', '.']);
});

test('a command gets the environment first on PATH, the checkout first on PYTHONPATH, and no user site', () => {
  const vars = pythonEnvVariables('/envs/k/venv/bin', '/envs/k/venv', ['/work/repo/src'], { PATH: '/usr/bin:/bin', PYTHONPATH: '/extra' });
  assert.deepEqual(vars, { PATH: '/envs/k/venv/bin:/usr/bin:/bin', VIRTUAL_ENV: '/envs/k/venv', PYTHONPATH: '/work/repo/src:/extra', PYTHONNOUSERSITE: '1' });
  assert.equal(pythonEnvVariables('/b', '/v', ['/r'], {})['PATH'], '/b');
});
