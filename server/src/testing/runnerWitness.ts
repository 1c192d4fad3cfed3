/**
 * Starting the runner witness for a test run (docs/sandbox.md, "The runner witness"). The
 * witness's Python lives in `resources/witness/`; for every run it is written to a fresh folder
 * in the sandbox's scratch by the test command's own script (bash builtins, no extra process),
 * that folder is put first on PYTHONPATH and pytest is asked to load it with `-p gp_witness`.
 * The one-time key goes to a file in that folder before the run, written by the sandbox itself
 * (never on a command line or in an environment variable the code under test could read); the
 * first runner process takes and removes it before the repository's code runs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Sandbox } from '../sandbox/index.js';
import { shellQuote } from '../sandbox/index.js';
import type { RunnerWitness } from '../protocol/testReport.js';
import { witnessNotRequested, type WitnessKey } from './witnessRecords.js';

/** The witness's files, written into its folder for every run. */
const sourceFiles = ['sitecustomize.py', 'gp_witness_core.py', 'gp_witness.py'] as const;

/** Repositories that are the test runner itself: their runner loads from the working copy by design. */
const runnerRepositories: ReadonlySet<string> = new Set(['pytest-dev/pytest', 'pytest-dev/pluggy']);

export interface WitnessRequest extends WitnessKey {
  /** The witness's folder in the sandbox. */
  readonly dir: string;
  readonly keyPath: string;
  /** Variables for the test command. */
  readonly env: Readonly<Record<string, string>>;
  /** Added to PYTEST_ADDOPTS. */
  readonly pytestOptions: string;
}

/** The witness for a run, or the record of a run that does not ask for one, with why. */
export type WitnessAsk = { readonly kind: 'asked'; readonly request: WitnessRequest } | { readonly kind: 'skipped'; readonly record: RunnerWitness };

let sources: ReadonlyArray<readonly [string, string]> | undefined;

/**
 * `resources/witness/` in the nearest folder above this module's that has one: the extension's
 * root for the bundle in `dist/` (the .vsix carries `resources/`), the repository for sources.
 */
function witnessSources(): ReadonlyArray<readonly [string, string]> {
  if (sources !== undefined) return sources;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'resources', 'witness');
    if (existsSync(join(candidate, 'gp_witness.py'))) {
      sources = sourceFiles.map((name) => [name, readFileSync(join(candidate, name), 'utf8')] as const);
      return sources;
    }
    // Shipping without the witness is a packaging bug, not a state a run can be in.
    if (dirname(dir) === dir) throw new Error(`resources/witness/ was not found above ${__dirname}`);
  }
}

/** pytest or unittest started by the command itself (not through tox or a script of its own). */
export function runsRunnerDirectly(command: string): boolean {
  if (/(^|[\s;&|(])tox(\s|$)/.test(command)) return false;
  return (
    /(^|[\s;&|(])(python[\d.]*\s+-m\s+)?(pytest|py\.test)(\s|$)/.test(command) ||
    /(^|[\s;&|(])python[\d.]*\s+-m\s+unittest(\s|$)/.test(command) ||
    /(^|[\s;&|(/])runtests\.py(\s|$)/.test(command)
  );
}

/**
 * The witness for a run of `command`, or why it is not asked for. A command that sets its own
 * PYTEST_ADDOPTS or PYTHONPATH would drop ours (and pytest would then fail to find a plugin it was
 * told to load); tox passes only some variables on; sympy's runner is the repository's own code.
 */
export function witnessRequest(sandbox: Sandbox, command: string, repo: string | undefined, format: string | undefined): WitnessAsk {
  const skipped = (reason: string): WitnessAsk => ({ kind: 'skipped', record: witnessNotRequested(reason) });
  if (format === 'sympy') return skipped("sympy's test runner is part of the repository under test, so there is no runner of ours to watch");
  if (/\bPYTEST_ADDOPTS\b|\bPYTHONPATH\b/.test(command)) return skipped('the test command sets its own PYTEST_ADDOPTS or PYTHONPATH');
  if (/(^|[\s;&|(])tox(\s|$)/.test(command)) return skipped('the test command runs tox, which passes only some variables on');
  const run = randomBytes(9).toString('hex');
  const dir = sandbox.scratchPath(`gp-witness-${run}`);
  const keyPath = `${dir}/key`;
  const request: WitnessRequest = {
    run,
    key: randomBytes(32).toString('hex'),
    dir,
    keyPath,
    pytestOptions: '-p gp_witness',
    env: {
      GP_WITNESS_KEY_FILE: keyPath,
      GP_WITNESS_RUN: run,
      GP_WITNESS_REPO: sandbox.workdir,
      ...(repo !== undefined && runnerRepositories.has(repo) ? { GP_WITNESS_RUNNER_REPO: '1' } : {}),
    },
  };
  return { kind: 'asked', request };
}

/**
 * Writes the key (which also makes the folder) with a write of its own where the sandbox's scripts
 * travel on a command line (the local backend without bubblewrap); elsewhere the test command's own
 * script writes it (`withWitness`), which saves a round trip of about 5 ms a test run in a container.
 */
export async function placeWitnessKey(sandbox: Sandbox, request: WitnessRequest): Promise<void> {
  if (sandbox.privateScripts === true) return;
  await sandbox.writeFile(request.keyPath, request.key, 0o600);
}

/**
 * The test command preceded by the writing of the witness's files and its place on PYTHONPATH.
 * `printf` is a bash builtin, so this starts no process; the files are fresh for every run, so a
 * previous run's code cannot have changed them.
 */
export function withWitness(command: string, request: WitnessRequest, privateScript = false): string {
  const dir = shellQuote(request.dir);
  // A script that travels privately makes the folder (only this user may enter it) and writes the
  // key itself; `mkdir` is the one program started. The key is hex, so it needs no quoting.
  const key = privateScript ? [`mkdir -p -m 700 -- ${dir}`, `printf '%s' ${request.key} > ${shellQuote(request.keyPath)}`] : [];
  return [
    ...key,
    ...witnessSources().map(([name, text]) => `printf '%s' ${shellQuote(text)} > ${dir}/${name}`),
    `export PYTHONPATH=${dir}\${PYTHONPATH:+:$PYTHONPATH}`,
    command,
  ].join('\n');
}
