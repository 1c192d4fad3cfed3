/**
 * Building one Python environment, once per distinct specification (`pythonEnv.ts` names it):
 *
 * 1. a wheelhouse: `pip wheel` from the package index with the task's interpreter, plus a pip wheel;
 * 2. a venv made `--without-pip` (Debian's Python has no ensurepip unless python3-venv is there),
 *    into which that pip wheel installs everything from the wheelhouse alone, so what the venv
 *    holds is exactly what the wheelhouse holds, and a container image can be built from the same
 *    wheelhouse without reaching the network;
 * 3. `gp-env.json`, written last and atomically: an environment without it did not finish and is
 *    built again from scratch.
 *
 * A lock file beside the environment (util/fileLock.ts) keeps two builds of the same key apart;
 * one left by a process that has died is taken over.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PythonEnvRecord } from '../protocol/sandbox.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { isoTimestamp } from '../util/time.js';
import { builtEnvRecord, envPaths, type ResolvedPythonEnv } from './pythonEnv.js';
import { SandboxError } from './sandbox.js';

export interface BuildEnvOptions {
  root: string;
  /** Build again even when a finished environment exists. */
  force?: boolean;
  /** pip's output, line by line. */
  onLine?: (line: string) => void;
  /** Per pip command; the default allows slow mirrors and source builds. */
  timeoutMs?: number;
}

export interface BuiltEnv {
  key: string;
  status: 'built' | 'cached';
  /** Time this call took (the lookup alone for a cached environment). */
  seconds: number;
  record: PythonEnvRecord;
  paths: ReturnType<typeof envPaths>;
}

/** Runs one command, streaming its lines; resolves with the exit code and the last lines. */
function stream(file: string, args: readonly string[], options: { onLine?: (line: string) => void; timeoutMs: number }): Promise<{ code: number | null; tail: string[] }> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONNOUSERSITE: '1' } });
    const tail: string[] = [];
    let partial = '';
    const take = (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        options.onLine?.(line);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partial !== '') tail.push(partial);
      done({ code, tail });
    });
  });
}

function failure(what: string, env: ResolvedPythonEnv, tail: readonly string[]): SandboxError {
  const last = tail.filter((l) => l.trim() !== '').slice(-12).join('\n');
  return new SandboxError(
    `${what} for Python environment ${env.key} (Python ${env.interpreter.version}: ${[...env.packages, ...(env.requirements ? [`-r ${env.requirements.path}`] : [])].join(' ') || 'no packages'}). ` +
      `Check the package names and versions (an old pin may have no release for Python ${env.interpreter.version}), and that the package index is reachable (PIP_INDEX_URL).\n${last}`,
    'env-missing',
  );
}

/** Builds the environment unless a finished one with the same key exists. */
/** Prints `name==version` for every distribution the interpreter sees, as `pip freeze --all` does. */
const listInstalled = [
  'import importlib.metadata as m',
  'seen = {}',
  'for d in m.distributions():',
  '    name = d.metadata["Name"]',
  '    if name and name.lower() not in seen: seen[name.lower()] = f"{name}=={d.version}"',
  'print("\\n".join(seen.values()))',
].join('\n');

export async function buildPythonEnv(env: ResolvedPythonEnv, options: BuildEnvOptions): Promise<BuiltEnv> {
  const started = performance.now();
  const paths = envPaths(options.root, env.key);
  const seconds = () => Math.round(performance.now() - started) / 1000;
  if (options.force !== true) {
    const record = await builtEnvRecord(options.root, env.key);
    if (record !== undefined) return { key: env.key, status: 'cached', seconds: seconds(), record, paths };
  }
  await mkdir(options.root, { recursive: true });
  // A second build of the same key is refused at once rather than queued: pip's output of two
  // builds would interleave, and the first one's result is what the second wanted anyway.
  return withFileLock(paths.dir, () => buildUnlocked(env, options, paths, started), {
    timeoutMs: 0,
    busy: (owner) => new SandboxError(`Python environment ${env.key} is being built by process ${owner ?? 'unknown'}; wait for it to finish, then run this again.`, 'env-missing'),
  });
}

async function buildUnlocked(env: ResolvedPythonEnv, options: BuildEnvOptions, paths: ReturnType<typeof envPaths>, started: number): Promise<BuiltEnv> {
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    await rm(paths.dir, { recursive: true, force: true });
    await mkdir(paths.wheels, { recursive: true });
    const timeoutMs = options.timeoutMs ?? 30 * 60_000;
    const python = env.interpreter.path;
    const say = options.onLine;
    const requirementArgs = env.requirements === undefined ? [] : ['-r', env.requirements.path];

    // The wheelhouse and the pip wheel the venv installs itself from are fetched at once: both
    // wait mostly on the index. A missing pip shows in the wheel step's own output.
    const [wheel, pipWheel] = await Promise.all([
      stream(python, ['-m', 'pip', 'wheel', '--wheel-dir', paths.wheels, '--progress-bar', 'off', ...env.packages, ...requirementArgs], { timeoutMs, ...(say ? { onLine: say } : {}) }),
      stream(python, ['-m', 'pip', 'download', '--dest', paths.wheels, '--only-binary=:all:', '--no-deps', '--progress-bar', 'off', 'pip'], { timeoutMs, ...(say ? { onLine: say } : {}) }),
    ]);
    if (wheel.code !== 0 && wheel.tail.some((line) => /No module named pip\b/.test(line))) {
      throw new SandboxError(`${python} (Python ${env.interpreter.version}) has no pip, which building its environment needs: install it (Debian: apt-get install python3-pip) or pick another interpreter in python_env.python.`, 'env-missing');
    }
    if (wheel.code !== 0) throw failure('pip could not fetch or build the packages', env, wheel.tail);
    if (pipWheel.code !== 0) throw failure('pip could not download a pip wheel', env, pipWheel.tail);
    const pipFile = (await readdir(paths.wheels)).find((name) => /^pip-.*\.whl$/.test(name));
    if (pipFile === undefined) throw failure('No pip wheel arrived', env, pipWheel.tail);

    const venv = await stream(python, ['-m', 'venv', '--without-pip', paths.venv], { timeoutMs: 120_000, ...(say ? { onLine: say } : {}) });
    if (venv.code !== 0) throw failure('python -m venv failed', env, venv.tail);
    const venvPython = join(paths.bin, 'python');
    // pip runs from its own wheel (pip supports `python pip.whl/pip`), so the venv needs no ensurepip.
    const install = await stream(
      venvPython,
      [join(paths.wheels, pipFile, 'pip'), 'install', '--no-index', '--find-links', paths.wheels, '--progress-bar', 'off', join(paths.wheels, pipFile), ...env.packages, ...requirementArgs],
      { timeoutMs, ...(say ? { onLine: say } : {}) },
    );
    if (install.code !== 0) throw failure('Installing from the wheelhouse failed', env, install.tail);
    const frozen: string[] = [];
    // What `pip freeze --all` lists (each distribution's metadata name and version), read without
    // importing pip, which costs the interpreter half a second.
    const freeze = await stream(venvPython, ['-I', '-c', listInstalled], { timeoutMs: 120_000, onLine: (line) => frozen.push(line) });
    if (freeze.code !== 0) throw failure('Listing the packages of the new environment failed', env, freeze.tail);

    const record: PythonEnvRecord = {
      schema: 'graph-planner/python-env@1',
      key: env.key,
      interpreter: env.interpreter.path,
      pythonVersion: env.interpreter.version,
      packages: [...env.packages],
      ...(env.requirements === undefined ? {} : { requirementsSha256: env.requirements.sha256 }),
      installed: frozen.filter((line) => /^[A-Za-z0-9_.-]+==/.test(line)).sort(),
      builtAt: isoTimestamp(),
      seconds: seconds(),
    };
    await writeFileAtomic(paths.record, `${JSON.stringify(record, null, 2)}\n`);
    return { key: env.key, status: 'built', seconds: record.seconds, record, paths };
  } catch (error) {
    // Nothing half-built is left to be mistaken for an environment (it has no record anyway).
    await rm(paths.dir, { recursive: true, force: true });
    throw error;
  }
}
