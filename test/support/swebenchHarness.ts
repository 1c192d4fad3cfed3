/**
 * SWE-bench's own harness code, the reference our grading is compared with: swebench 5.0.2 and the
 * one package it imports (unidiff), downloaded from PyPI as wheels pinned by hash and unpacked once
 * per machine. Nothing is installed into any interpreter; the scripts that use it import it from
 * the unpacked folder (see `test/integration/swebench-harness/harness_cases.py`).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The harness's grading code and the one package it imports, pinned (PyPI, MIT licences). */
const harnessWheels = [
  { spec: 'swebench==5.0.2', file: 'swebench-5.0.2-py3-none-any.whl', sha256: 'b7f0416a1e686eca22c2f749b5f816685a202835032f6683080e2b53545bbb62' },
  { spec: 'unidiff==0.7.5', file: 'unidiff-0.7.5-py2.py3-none-any.whl', sha256: 'c93bf2265cc1ba2a520e415ab05da587370bc2a3ae9e0414329f54f0c2fc09e8' },
];

/** The wheels unpacked once per machine under ~/.cache/graph-planner, checked against their hashes. */
export function harnessDir(): string {
  const dir = join(homedir(), '.cache', 'graph-planner', 'swebench-harness-5.0.2');
  if (existsSync(join(dir, 'swebench', 'harness', 'grading.py')) && existsSync(join(dir, 'unidiff'))) return dir;
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  execFileSync(
    'python3',
    ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:', '-q', '-d', staging, ...harnessWheels.map((w) => w.spec)],
    { stdio: 'inherit' },
  );
  for (const wheel of harnessWheels) {
    const digest = createHash('sha256')
      .update(readFileSync(join(staging, wheel.file)))
      .digest('hex');
    assert.equal(digest, wheel.sha256, `${wheel.file} is not the pinned wheel`);
    execFileSync('python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', join(staging, wheel.file), staging]);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return dir;
}

/**
 * Runs one of the harness scripts with `python3 -S`: no site-packages, so the answer comes from the
 * pinned wheels and the standard library alone, whatever the host interpreter has installed.
 */
export function runHarnessScript(script: string, args: readonly string[], input: string): string {
  const ran = spawnSync('python3', ['-S', script, harnessDir(), ...args], { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(ran.status, 0, `${script} failed: ${ran.error?.message ?? ''}${ran.stderr}`);
  return ran.stdout;
}
