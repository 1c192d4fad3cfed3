/**
 * The Python environment figures: what `gp env build` costs for one specification (two real
 * packages pinned to old versions, from the package index, resolved as of a day by uv), built and
 * then found built, against what a person would type instead, in the same run:
 *
 * - `python-env-build`: ours, `buildPythonEnv` into an empty root (uv venv with the toolchain of
 *   the day, uv pip install, record); anchor, `python -m venv` with pip then `pip install` of the
 *   same resolved list (every distribution the environment holds, pinned), so both install the
 *   same versions and the figure is the resolver's and installer's speed-up;
 * - `python-env-cache-hit`: ours, `buildPythonEnv` again (it finds the finished environment);
 *   anchor, `pip install` of the same packages into the anchor's venv, which has them all (pip's
 *   own "already satisfied" path, the cheapest way to make sure an environment is there);
 * - `python-env-build-parallel`: ten specifications built with `--parallel 2`'s pool against one
 *   at a time.
 *
 * Both download caches are warmed first (one untimed build each; uv's is shared by every root, as
 * `gp env build` shares it), so neither side fetches and the figures compare the work, not the
 * network. Each side runs `runs` times, interleaved.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildPythonEnv, resolvePythonEnv, type ResolvedPythonEnv } from '../server/src/sandbox/index.js';
import { inPool } from '../server/src/cli/envReport.js';
import { forgetInterpreters } from '../server/src/sandbox/pythonEnv.js';
import { pythonEnvFromTable } from '../server/src/datasets/swebenchTable.js';
import type { BenchResult } from './result.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

const execFileAsync = promisify(execFile);
const packages = ['pytest==7.4.0', 'six==1.15.0'];
/** The day both figures' environments resolve as of. */
const asOf = '2023-09-06';
const runs = 3;
const hitRuns = 9;

async function seconds(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

async function anchorBuild(python: string, dir: string, wanted: readonly string[]): Promise<void> {
  await execFileAsync(python, ['-m', 'venv', dir]);
  await execFileAsync(join(dir, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '--progress-bar', 'off', ...wanted], {
    maxBuffer: 8 * 1024 * 1024,
  });
}

/** Ours, into a fresh root, with the shared (warm) wheel cache. */
function oursBuild(env: ResolvedPythonEnv, root: string, cacheDir: string): Promise<unknown> {
  return buildPythonEnv(env, { root, cacheDir });
}

/** The SWE-bench specification the second build figure uses: its table entry, as `gp dataset prepare` turns it into a python_env. */
const swebenchSpec = { repo: 'pydicom/pydicom', version: '2.1' };

/**
 * `python-env-build-swebench`: the environment of a SWE-bench specification from the harness's
 * tables (Python 3.9, numpy, pytest and the build tools a venv lacks), built by `gp env build`
 * against `python3.9 -m venv` + `pip install` of the same requirements; pip's cache warm.
 */
async function benchSwebenchSpec(scratch: string, log: (line: string) => void): Promise<BenchResult> {
  const lookup = pythonEnvFromTable(swebenchSpec.repo, swebenchSpec.version);
  if (!lookup.ok) throw new Error(lookup.message);
  const spec = { python: lookup.env.python ?? 'python3', packages: lookup.env.packages, asOf };
  const env = await resolvePythonEnv(spec);
  const python = env.interpreter.path;
  const cache = join(scratch, 'uv-cache');
  log(`python env: ${env.key} (${lookup.env.source}: Python ${env.interpreter.version}, ${spec.packages.join(' ')}), warming both caches`);
  const warm = await buildPythonEnv(env, { root: join(scratch, 'spec-warm'), cacheDir: cache });
  const resolved = warm.record.installed;
  await anchorBuild(python, join(scratch, 'spec-warm-anchor'), resolved);
  const ours: number[] = [];
  const anchor: number[] = [];
  for (let i = 0; i < runs; i++) {
    const root = join(scratch, `spec-ours-${i}`);
    const venv = join(scratch, `spec-anchor-${i}`);
    if (i % 2 === 0) {
      ours.push(await seconds(() => oursBuild(env, root, cache)));
      anchor.push(await seconds(() => anchorBuild(python, venv, resolved)));
    } else {
      anchor.push(await seconds(() => anchorBuild(python, venv, resolved)));
      ours.push(await seconds(() => oursBuild(env, root, cache)));
    }
  }
  const o = summarize(ours).median;
  const a = summarize(anchor).median;
  return {
    name: 'python-env-build-swebench',
    what: `gp env build of ${lookup.env.source}'s environment from the harness's table (Python ${env.interpreter.version}: ${spec.packages.join(', ')}) as of ${asOf} into an empty root, both download caches warm; median of ${runs}`,
    unit: 's',
    ours: o,
    anchor: a,
    anchorName: `python${lookup.env.python ?? '3'} -m venv + pip install of the same resolved list (${resolved.length} pins)`,
    ratio: o / a,
    goal: 'ratio <= 1.0',
    pass: o / a <= 1.0,
    details: { runs, key: env.key, oursMin: Math.min(...ours), anchorMin: Math.min(...anchor), speedUp: a / o },
  };
}

/** `python-env-build-parallel`: ten specifications (pytest 7.4.0 with ten releases of six) with a pool of 2 against one at a time. */
async function benchParallel(scratch: string, log: (line: string) => void): Promise<BenchResult> {
  const specs = await Promise.all(
    Array.from({ length: 10 }, (_, i) => resolvePythonEnv({ python: 'python3', packages: ['pytest==7.4.0', `six==1.${7 + i}.0`], asOf })),
  );
  const cache = join(scratch, 'uv-cache');
  log('python env: warming the cache with the ten specifications');
  await inPool(specs, 2, (env) => buildPythonEnv(env, { root: join(scratch, 'parallel-warm'), cacheDir: cache }));
  const one = await seconds(() => inPool(specs, 1, (env) => buildPythonEnv(env, { root: join(scratch, 'parallel-1'), cacheDir: cache })));
  const two = await seconds(() => inPool(specs, 2, (env) => buildPythonEnv(env, { root: join(scratch, 'parallel-2'), cacheDir: cache })));
  return {
    name: 'python-env-build-parallel',
    what: 'gp env build of ten specifications (pytest 7.4.0 and six 1.7 to 1.16, as of 2023-09-06) with --parallel 2, the wheel cache warm',
    unit: 's',
    ours: two,
    anchor: one,
    anchorName: 'the same ten, one at a time',
    ratio: two / one,
    goal: 'ratio < 1 (two cores)',
    pass: two / one < 1,
    details: { environments: specs.length },
  };
}

export async function benchPythonEnv(log: (line: string) => void): Promise<FigureOutcome> {
  const env = await resolvePythonEnv({ python: 'python3', packages, asOf });
  const python = env.interpreter.path;
  const scratch = await mkdtemp(join(tmpdir(), 'gp-bench-env-'));
  const cache = join(scratch, 'uv-cache');
  try {
    log(`python env: ${env.key} (Python ${env.interpreter.version}: ${packages.join(' ')}), warming both caches`);
    const warm = await buildPythonEnv(env, { root: join(scratch, 'warm'), cacheDir: cache });
    const resolved = warm.record.installed;
    await anchorBuild(python, join(scratch, 'warm-anchor'), resolved);
    const ours: number[] = [];
    const anchor: number[] = [];
    for (let i = 0; i < runs; i++) {
      const root = join(scratch, `ours-${i}`);
      const venv = join(scratch, `anchor-${i}`);
      // Alternate which side goes first, so a slow moment of the machine falls on both.
      if (i % 2 === 0) {
        ours.push(await seconds(() => oursBuild(env, root, cache)));
        anchor.push(await seconds(() => anchorBuild(python, venv, resolved)));
      } else {
        anchor.push(await seconds(() => anchorBuild(python, venv, resolved)));
        ours.push(await seconds(() => oursBuild(env, root, cache)));
      }
    }
    const hitOurs: number[] = [];
    const hitAnchor: number[] = [];
    const venv = join(scratch, 'anchor-0');
    for (let i = 0; i < hitRuns; i++) {
      // What `gp env build` does on a hit: find the interpreter, hash the specification, read the record.
      hitOurs.push(
        await seconds(async () => {
          forgetInterpreters();
          const again = await resolvePythonEnv({ python: 'python3', packages, asOf });
          const built = await buildPythonEnv(again, { root: join(scratch, 'ours-0') });
          if (built.status !== 'cached') throw new Error(`the second build of ${env.key} was not a cache hit`);
        }),
      );
      hitAnchor.push(await seconds(() => execFileAsync(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', ...packages])));
    }
    const build = { ours: summarize(ours).median, anchor: summarize(anchor).median };
    const hit = { ours: summarize(hitOurs).median, anchor: summarize(hitAnchor).median };
    const results: BenchResult[] = [
      await benchSwebenchSpec(scratch, log),
      {
        name: 'python-env-build',
        what: `gp env build of one specification (${packages.join(', ')}, as of ${asOf}) into an empty root, both download caches warm; median of ${runs}`,
        unit: 's',
        ours: build.ours,
        anchor: build.anchor,
        anchorName: `python -m venv + pip install of the same resolved list (${resolved.length} pins)`,
        ratio: build.ours / build.anchor,
        goal: 'ratio <= 1.0',
        pass: build.ours / build.anchor <= 1.0,
        details: {
          runs,
          key: env.key,
          python: env.interpreter.version,
          oursMin: Math.min(...ours),
          anchorMin: Math.min(...anchor),
          speedUp: build.anchor / build.ours,
        },
      },
      await benchParallel(scratch, log),
      {
        name: 'python-env-cache-hit',
        what: `gp env build of a specification already built; median of ${hitRuns}`,
        unit: 's',
        ours: hit.ours,
        anchor: hit.anchor,
        anchorName: 'pip install, all already satisfied',
        ratio: hit.ours / hit.anchor,
        // Finding an environment must cost a fraction of pip's own no-op, or people skip the check.
        goal: 'ratio <= 0.25',
        pass: hit.ours / hit.anchor <= 0.25,
        details: { runs: hitRuns },
      },
    ];
    return { results, notMeasured: [] };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
