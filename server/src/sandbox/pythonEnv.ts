/**
 * A task's Python environment: which interpreter it is made from, the key that names one distinct
 * specification (so tasks that ask for the same thing share one environment), where built
 * environments live, and the variables that put one first for a command.
 *
 * The key hashes the interpreter's exact version (not its path, so two machines with the same
 * Python agree), the packages as written and the requirements file's content. A task whose tests
 * ran with whatever `pytest` came first on the host's PATH could be graded by the wrong tools, so
 * an environment that was asked for and is not built is an error, never a silent fallback.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { pythonEnvRecordSchema, type PythonEnvRecord, type PythonEnvRequest } from '../protocol/sandbox.js';
import { SandboxError } from './sandbox.js';

export interface Interpreter {
  /** The executable as Python reports it (`sys.executable`). */
  path: string;
  /** `3.11.7`. */
  version: string;
}

export interface ResolvedPythonEnv {
  key: string;
  interpreter: Interpreter;
  packages: readonly string[];
  requirements?: { path: string; text: string; sha256: string };
  /** The day unpinned packages resolve as of; absent, the day of the build. */
  asOf?: string;
}

/** Where built environments live: $GP_PYTHON_ENVS, else ~/.cache/graph-planner/python-envs. */
export function pythonEnvsRoot(): string {
  return process.env['GP_PYTHON_ENVS'] ?? join(homedir(), '.cache', 'graph-planner', 'python-envs');
}

/** The folders of one environment under the root. */
export function envPaths(root: string, key: string): { dir: string; venv: string; bin: string; wheels: string; record: string } {
  const dir = join(root, key);
  return { dir, venv: join(dir, 'venv'), bin: join(dir, 'venv', 'bin'), wheels: join(dir, 'wheels'), record: join(dir, 'gp-env.json') };
}

function run(file: string, args: readonly string[], timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, args, { timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null;
      done({ code, stdout, stderr });
    });
  });
}

const probe = 'import sys, platform; print(sys.executable); print(platform.python_version())';

async function ask(candidate: string): Promise<Interpreter | undefined> {
  const { code, stdout } = await run(candidate, ['-c', probe]);
  const [path, version] = stdout.trim().split('\n');
  return code === 0 && path !== undefined && version !== undefined && path !== '' ? { path, version } : undefined;
}

/** `python3.9` under pyenv's versions, newest patch release first. */
function pyenvCandidates(version: string): string[] {
  const root = process.env['PYENV_ROOT'] ?? join(homedir(), '.pyenv');
  const versions = join(root, 'versions');
  if (!existsSync(versions)) return [];
  const minor = version.split('.').slice(0, 2).join('.');
  return readdirSync(versions)
    .filter((name) => name === version || name.startsWith(`${version}.`))
    .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))
    .map((name) => join(versions, name, 'bin', `python${minor}`))
    .filter((path) => existsSync(path) && statSync(path).isFile());
}

/**
 * The interpreter a request names: an absolute path as is; a version such as `3.9` as `python3.9`
 * on PATH, then under pyenv, and it must report that version; anything else as a command on PATH.
 */
export function findInterpreter(python: string): Promise<Interpreter> {
  // Every sandbox of a task with an environment resolves it; asking Python (through a pyenv shim,
  // a tenth of a second) once per process is enough. Failures are not kept, so an interpreter
  // installed meanwhile is found by the next attempt.
  let found = interpreters.get(python);
  if (found === undefined) {
    found = lookUpInterpreter(python);
    interpreters.set(python, found);
    found.catch(() => interpreters.delete(python));
  }
  return found;
}

const interpreters = new Map<string, Promise<Interpreter>>();

/** Forgets the interpreters found, as a new process would; the benchmark measures that case. */
export function forgetInterpreters(): void {
  interpreters.clear();
}

async function lookUpInterpreter(python: string): Promise<Interpreter> {
  const isVersion = /^\d+(\.\d+){0,2}$/.test(python);
  const candidates = isAbsolute(python) ? [python] : isVersion ? [`python${python.split('.').slice(0, 2).join('.')}`, ...pyenvCandidates(python)] : [python];
  const tried: string[] = [];
  for (const candidate of candidates) {
    const found = await ask(candidate);
    if (found === undefined) {
      tried.push(candidate);
      continue;
    }
    if (isVersion && !(found.version === python || found.version.startsWith(`${python}.`))) {
      tried.push(`${candidate} (is ${found.version})`);
      continue;
    }
    return found;
  }
  throw new SandboxError(
    `No Python interpreter for python_env.python "${python}" on this machine (tried ${tried.join(', ')}). ` +
      `Install that Python (for example with pyenv or your system's packages), or set python_env.python to an interpreter you have, such as "python3" or an absolute path.`,
    'env-missing',
  );
}

/** The environment's key and what it is built from. `requirements` must already be an absolute path. */
export async function resolvePythonEnv(request: PythonEnvRequest): Promise<ResolvedPythonEnv> {
  const interpreter = await findInterpreter(request.python);
  let requirements: ResolvedPythonEnv['requirements'];
  if (request.requirements !== undefined) {
    const text = await readFile(request.requirements, 'utf8').catch((error: unknown) => {
      throw new SandboxError(
        `Cannot read python_env.requirements ${request.requirements}: ${(error as Error).message}. Fix the path (relative paths resolve against the task file's folder).`,
        'env-missing',
      );
    });
    requirements = { path: request.requirements, text, sha256: createHash('sha256').update(text).digest('hex') };
  }
  // Version 2: environments are resolved by uv as of a day, which is part of what they are built
  // from; an environment of version 1 (today's pip, whatever day it ran) is never reused for one.
  const identity = JSON.stringify({
    v: 2,
    python: interpreter.version,
    arch: process.arch,
    packages: request.packages,
    requirements: requirements?.sha256 ?? null,
    asOf: request.asOf ?? null,
  });
  const key = `py${interpreter.version.split('.').slice(0, 2).join('')}-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
  return {
    key,
    interpreter,
    packages: request.packages,
    ...(requirements === undefined ? {} : { requirements }),
    ...(request.asOf === undefined ? {} : { asOf: request.asOf }),
  };
}

/** The record of a built environment, or undefined when it was never built or its build did not finish. */
export async function builtEnvRecord(root: string, key: string): Promise<PythonEnvRecord | undefined> {
  const paths = envPaths(root, key);
  try {
    const record = pythonEnvRecordSchema.parse(JSON.parse(await readFile(paths.record, 'utf8')));
    return existsSync(join(paths.bin, 'python')) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a repository keeps its packages under `src/` (a folder there with an `__init__.py`). */
export function hasSrcLayout(repoRoot: string): boolean {
  const src = join(repoRoot, 'src');
  if (!existsSync(src) || !statSync(src).isDirectory()) return false;
  return readdirSync(src, { withFileTypes: true }).some((entry) => entry.isDirectory() && existsSync(join(src, entry.name, '__init__.py')));
}

/** Repository folders first on PYTHONPATH: as the task says, else `src` for a src layout, else the root. */
export function pythonPathFolders(request: PythonEnvRequest, repoRoot: string): string[] {
  return request.pythonpath ?? (hasSrcLayout(repoRoot) ? ['src'] : ['.']);
}

/**
 * Variables that put a built environment first for a command on this machine: its `bin` on PATH,
 * the repository's folders on PYTHONPATH, and no user site-packages (which would leak the host's
 * packages back in).
 */
export function pythonEnvVariables(bin: string, venv: string, pythonPath: readonly string[], inherited: NodeJS.ProcessEnv): Record<string, string> {
  const path = inherited['PATH'];
  const existing = inherited['PYTHONPATH'];
  return {
    PATH: path === undefined || path === '' ? bin : `${bin}${delimiter}${path}`,
    VIRTUAL_ENV: venv,
    PYTHONPATH: [...pythonPath, ...(existing === undefined || existing === '' ? [] : [existing])].join(delimiter),
    PYTHONNOUSERSITE: '1',
  };
}
