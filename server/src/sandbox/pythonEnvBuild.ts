/**
 * Building one Python environment, once per distinct specification (`pythonEnv.ts` names it), as
 * of a day (docs/upstream-contracts.md#environments-as-of-a-date):
 *
 * 1. `uv venv --seed`: a venv of the task's interpreter with the pip, setuptools and wheel that
 *    were current on that day (the repository's own install later runs with that pip, whose
 *    behaviour, legacy editable installs among it, is what the harness's install had);
 * 2. `uv pip install` of the packages, every unpinned requirement, dependency and build
 *    requirement of a source distribution resolved as of the same day (`--exclude-newer`), with
 *    one wheel cache shared by every environment under the root;
 * 3. `gp-env.json`, written last and atomically: the day and why, the resolver, the toolchain, every
 *    installed distribution and the time taken. An environment without it did not finish and is
 *    built again from scratch.
 *
 * Nothing comes from the host interpreter but the interpreter itself, so a build does not depend
 * on what happens to be installed there. A wheelhouse for the container image is made only when
 * `--docker` asks for one (`ensureWheelhouse`).
 *
 * A lock file beside the environment (util/fileLock.ts) keeps two builds of the same key apart;
 * one left by a process that has died is taken over.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PythonEnvRecord } from '../protocol/sandbox.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { isoTimestamp } from '../util/time.js';
import { builtEnvRecord, envPaths, type ResolvedPythonEnv } from './pythonEnv.js';
import { SandboxError } from './sandbox.js';
import { excludeNewerOf, uvBinary, uvVersion } from './uvTool.js';

export interface BuildEnvOptions {
  root: string;
  /** Build again even when a finished environment exists. */
  force?: boolean;
  /** pip's output, line by line. */
  onLine?: (line: string) => void;
  /** Per pip command; the default allows slow mirrors and source builds. */
  timeoutMs?: number;
  /** The wheel cache; default `wheelCacheOf(root)`, shared by every environment under the root. */
  cacheDir?: string;
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
function stream(
  file: string,
  args: readonly string[],
  options: { onLine?: (line: string) => void; timeoutMs: number },
): Promise<{ code: number | null; tail: string[] }> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: toolEnv() });
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
  const last = tail
    .filter((l) => l.trim() !== '')
    .slice(-12)
    .join('\n');
  return new SandboxError(
    `${what} for Python environment ${env.key} (Python ${env.interpreter.version}: ${[...env.packages, ...(env.requirements ? [`-r ${env.requirements.path}`] : [])].join(' ') || 'no packages'}). ` +
      `Check the package names and versions (an old pin may have no release for Python ${env.interpreter.version}, and a pin released after the day the environment resolves as of, ${asOfFor(env).day}, is not seen: raise python_env.as_of), and that the package index is reachable (UV_INDEX_URL or PIP_INDEX_URL).\n${last}`,
    'env-missing',
  );
}

/**
 * The variables every build command runs with: no user site-packages, no pip version check, and no
 * uv or pip configuration file of the machine's (a user's `uv.toml` or `pip.conf` could change what
 * resolves); the index stays the user's (UV_INDEX_URL, else PIP_INDEX_URL), since a mirror serves
 * the same releases with the same upload times.
 *
 */
function toolEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONNOUSERSITE: '1', UV_NO_CONFIG: '1', PIP_CONFIG_FILE: '/dev/null' };
  delete env['UV_COMPILE_BYTECODE'];
  if (env['UV_INDEX_URL'] === undefined && env['PIP_INDEX_URL'] !== undefined) env['UV_INDEX_URL'] = env['PIP_INDEX_URL'];
  return env;
}

/** Today's day in UTC, the day an environment that names none is resolved as of. */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The day an environment resolves as of, and why (the record says both). */
export function asOfFor(env: ResolvedPythonEnv): { day: string; why: string } {
  return env.asOf === undefined
    ? { day: today(), why: 'the day it was built (the task names no python_env.as_of)' }
    : { day: env.asOf, why: 'python_env.as_of of its tasks' };
}

/** Where every environment under a root keeps the wheels uv downloaded and built: shared, so a package is fetched once per machine. */
export function wheelCacheOf(root: string): string {
  return join(root, '.uv-cache');
}

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
    busy: (owner) =>
      new SandboxError(
        `Python environment ${env.key} is being built by process ${owner ?? 'unknown'}; wait for it to finish, then run this again.`,
        'env-missing',
      ),
  });
}

async function buildUnlocked(env: ResolvedPythonEnv, options: BuildEnvOptions, paths: ReturnType<typeof envPaths>, started: number): Promise<BuiltEnv> {
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    await rm(paths.dir, { recursive: true, force: true });
    await mkdir(paths.dir, { recursive: true });
    const timeoutMs = options.timeoutMs ?? 30 * 60_000;
    const uv = uvBinary();
    const asOf = asOfFor(env);
    const common = ['--exclude-newer', excludeNewerOf(asOf.day), '--cache-dir', options.cacheDir ?? wheelCacheOf(options.root), '--no-progress'];
    const say = options.onLine;
    const sayOption = say ? { onLine: say } : {};

    // The toolchain of the day: pip, setuptools and wheel as they were then.
    const venv = await stream(uv, ['venv', '--seed', '--python', env.interpreter.path, ...common, paths.venv], { timeoutMs: 10 * 60_000, ...sayOption });
    if (venv.code !== 0) throw failure(`uv venv could not make the environment as of ${asOf.day}`, env, venv.tail);
    const venvPython = join(paths.bin, 'python');
    const requirementArgs = env.requirements === undefined ? [] : ['-r', env.requirements.path];
    if (env.packages.length > 0 || requirementArgs.length > 0) {
      const install = await stream(uv, ['pip', 'install', '--python', venvPython, ...common, ...env.packages, ...requirementArgs], { timeoutMs, ...sayOption });
      if (install.code !== 0) throw failure(`uv could not install the packages as of ${asOf.day}`, env, install.tail);
    }
    // Bytecode is compiled at install time, as pip (and so the harness's install) does and uv by
    // default does not: an old package whose source now warns when compiled (blinker 1.4's
    // invalid escapes) would otherwise be compiled at import under a suite's
    // `filterwarnings = error`, where the warning is a SyntaxError, and the suite would fail where
    // the harness's passes. The interpreter's own compileall does it, since uv's
    // (`--compile-bytecode`) fails on Python 3.6; like pip, a file that does not compile (a
    // Python 2 module shipped in a package) is left as it is, so the exit status is not a failure.
    await stream(venvPython, ['-m', 'compileall', '-q', '-j', '0', join(paths.venv, 'lib')], { timeoutMs: 10 * 60_000 });
    // uv reads the installed metadata itself, so this works on every interpreter it can build for
    // (Python 3.6 and 3.7 have no importlib.metadata to ask).
    const listed: string[] = [];
    const list = await stream(uv, ['pip', 'freeze', '--python', venvPython, '--no-config'], { timeoutMs: 120_000, onLine: (line) => listed.push(line) });
    if (list.code !== 0) throw failure('uv pip freeze could not list the packages of the new environment', env, list.tail);
    const installed = listed.filter((line) => /^[A-Za-z0-9_.-]+==/.test(line)).sort((a, b) => a.localeCompare(b));
    const toolchain: Record<string, string> = {};
    for (const line of installed) {
      const [name = '', version = ''] = line.split('==');
      if (['pip', 'setuptools', 'wheel'].includes(name.toLowerCase())) toolchain[name.toLowerCase()] = version;
    }

    const record: PythonEnvRecord = {
      schema: 'graph-planner/python-env@2',
      key: env.key,
      interpreter: env.interpreter.path,
      pythonVersion: env.interpreter.version,
      packages: [...env.packages],
      ...(env.requirements === undefined ? {} : { requirementsSha256: env.requirements.sha256 }),
      asOf: asOf.day,
      asOfWhy: asOf.why,
      resolver: `uv ${uvVersion}`,
      toolchain,
      installed,
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

/**
 * The wheelhouse a container image installs the environment from offline: a wheel of every
 * distribution the environment holds, at the versions it holds, made by the environment's own pip
 * (from the index, or built from a source distribution). Made once; `--force` makes it again.
 */
export async function ensureWheelhouse(env: BuiltEnv, options: { force?: boolean; onLine?: (line: string) => void; timeoutMs?: number } = {}): Promise<void> {
  const done = join(env.paths.wheels, '.complete');
  if (options.force !== true && existsSync(done)) return;
  await rm(env.paths.wheels, { recursive: true, force: true });
  await mkdir(env.paths.wheels, { recursive: true });
  const pinned = join(env.paths.wheels, 'pinned.txt');
  await writeFileAtomic(pinned, `${env.record.installed.join('\n')}\n`);
  const wheel = await stream(
    join(env.paths.bin, 'python'),
    ['-m', 'pip', 'wheel', '--no-deps', '--wheel-dir', env.paths.wheels, '--progress-bar', 'off', '-r', pinned],
    {
      timeoutMs: options.timeoutMs ?? 30 * 60_000,
      ...(options.onLine ? { onLine: options.onLine } : {}),
    },
  );
  if (wheel.code !== 0) {
    await rm(env.paths.wheels, { recursive: true, force: true });
    throw new SandboxError(
      `pip could not make the wheelhouse of Python environment ${env.key} for its image:\n${wheel.tail
        .filter((l) => l.trim() !== '')
        .slice(-12)
        .join('\n')}`,
      'env-missing',
    );
  }
  await writeFileAtomic(done, '');
}
