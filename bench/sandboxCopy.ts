/**
 * Tree copy in and out: a generated 1 MB repository tree (100 Python-looking files of about 10 KB
 * in 10 packages) goes from the host's disk into a running sandbox and back onto the host's disk.
 *
 * - ours: in, the files are read, packed into one tar (`packFiles`) and sent with one `putArchive`
 *   through the sandbox's dockerode handle (the sandbox writes single files only); out,
 *   `sandbox.readTree` brings the tree back in one archive and its files are written to disk;
 * - anchor: the docker CLI, `docker cp DIR CONTAINER:/dest` and `docker cp CONTAINER:/dest DIR`,
 *   each a spawned process, so its start-up cost is part of the anchor as it is of anyone using it.
 *
 * Every copy that comes back is compared with the source (file count, bytes and a SHA-256 over the
 * sorted paths and contents), ours and the anchor's alike: a copy that lost files must not look fast.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { DockerSandbox } from '../server/src/sandbox/dockerSandbox.js';
import { packFiles } from '../server/src/sandbox/tarFiles.js';
import type { BenchResult } from './result.js';
import { percentiles } from './stats.js';
import { benchSpec, Mismatches, sig3, spreadDetails, timed, type SandboxBench } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';

export const copyFigureName = 'sandbox-tree-copy';

const execFileAsync = promisify(execFile);
const goalRatio = 1.0;
const runs = 10;
const warmup = 2;
const packages = 10;
const modulesPerPackage = 10;
const moduleBytes = 10_000;

/** A deterministic module of about `moduleBytes` bytes that reads like ordinary Python. */
function pythonModule(pkg: number, mod: number): string {
  const lines = [`"""Helpers for package ${pkg}, module ${mod}."""`, '', 'import math', ''];
  let size = lines.join('\n').length;
  for (let k = 0; size < moduleBytes; k++) {
    const block = [
      '',
      `def scaled_total_${k}(values, factor=${(k % 7) + 1}):`,
      `    """Return the total of values for case ${k}, each scaled by factor."""`,
      '    total = 0',
      '    for value in values:',
      `        total += math.floor(value * factor) % ${97 + pkg * 10 + mod}`,
      '    return total',
      '',
    ];
    lines.push(...block);
    size += block.join('\n').length + 1;
  }
  return `${lines.join('\n')}\n`;
}

async function writeSourceTree(root: string): Promise<void> {
  for (let p = 0; p < packages; p++) {
    await mkdir(join(root, `pkg_${p}`), { recursive: true });
    for (let m = 0; m < modulesPerPackage; m++) await writeFile(join(root, `pkg_${p}`, `mod_${m}.py`), pythonModule(p, m));
  }
}

/** Paths of the regular files under `root`, relative to it with `/` separators, sorted. */
async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

interface Digest {
  readonly files: number;
  readonly bytes: number;
  readonly sha256: string;
}

async function digestTree(root: string): Promise<Digest> {
  const hash = createHash('sha256');
  let bytes = 0;
  const paths = await listTree(root);
  for (const path of paths) {
    const content = await readFile(join(root, path));
    bytes += content.length;
    hash.update(`${path}\0${content.length}\0`).update(content);
  }
  return { files: paths.length, bytes, sha256: hash.digest('hex') };
}

function sameDigest(a: Digest, b: Digest): boolean {
  return a.files === b.files && a.bytes === b.bytes && a.sha256 === b.sha256;
}

/** The docker CLI on PATH, or in one of the two places it is usually installed. */
function dockerCli(): string | undefined {
  const onPath = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((d) => d.length > 0)
    .map((d) => join(d, 'docker'));
  return [...onPath, '/usr/local/bin/docker', '/usr/bin/docker'].find((p) => existsSync(p));
}

interface Copier {
  copyIn(source: string, dest: string): Promise<void>;
  copyOut(dest: string, target: string): Promise<void>;
}

function oursCopier(sandbox: DockerSandbox): Copier {
  const container = sandbox.client.getContainer(sandbox.id);
  return {
    async copyIn(source, dest) {
      const paths = await listTree(source);
      const entries = await Promise.all(paths.map(async (path) => ({ name: `${dest.slice(1)}/${path}`, content: await readFile(join(source, path)) })));
      // The entries carry the whole path under `/`, so Docker creates the destination folders itself.
      await container.putArchive(await packFiles(entries), { path: '/' });
    },
    async copyOut(dest, target) {
      const files = await sandbox.readTree(dest);
      for (const dir of new Set(files.map((f) => dirname(join(target, f.path))))) await mkdir(dir, { recursive: true });
      await Promise.all(files.map((f) => writeFile(join(target, f.path), f.content)));
    },
  };
}

function cliCopier(cli: string, containerId: string): Copier {
  return {
    async copyIn(source, dest) {
      await execFileAsync(cli, ['cp', source, `${containerId}:${dest}`]);
    },
    async copyOut(dest, target) {
      await execFileAsync(cli, ['cp', `${containerId}:${dest}`, target]);
    },
  };
}

interface Series {
  readonly in: number[];
  readonly out: number[];
  readonly roundTrip: number[];
}

async function roundTrip(copier: Copier, source: string, dest: string, target: string, series: Series): Promise<void> {
  const inMs = (await timed(() => copier.copyIn(source, dest))).ms;
  const outMs = (await timed(() => copier.copyOut(dest, target))).ms;
  series.in.push(inMs);
  series.out.push(outMs);
  series.roundTrip.push(inMs + outMs);
}

export async function benchTreeCopy(bench: SandboxBench): Promise<FigureOutcome> {
  const cli = dockerCli();
  if (cli === undefined)
    return { results: [], notMeasured: [{ name: copyFigureName, reason: 'the docker CLI (the anchor) is not on PATH, /usr/local/bin or /usr/bin' }] };
  const scratch = await mkdtemp(join(tmpdir(), 'gp-bench-copy-'));
  const sandbox = await DockerSandbox.open(benchSpec(bench, 'tree-copy'));
  try {
    const source = join(scratch, 'source');
    await writeSourceTree(source);
    const expected = await digestTree(source);
    const sides = { ours: oursCopier(sandbox), anchor: cliCopier(cli, sandbox.id) } as const;
    const series: { readonly ours: Series; readonly anchor: Series } = { ours: { in: [], out: [], roundTrip: [] }, anchor: { in: [], out: [], roundTrip: [] } };
    const checks = new Mismatches();
    for (let run = -warmup; run < runs; run++) {
      // Alternating which side goes first keeps a warmer cache from always favouring the same one.
      const order = run % 2 === 0 ? (['ours', 'anchor'] as const) : (['anchor', 'ours'] as const);
      for (const side of order) {
        const name = `copy-${side}-${run + warmup}`;
        const target = join(scratch, name);
        const kept: Series = run < 0 ? { in: [], out: [], roundTrip: [] } : series[side];
        await roundTrip(sides[side], source, `/tmp/${name}`, target, kept);
        const got = await digestTree(target);
        checks.check(
          side,
          sameDigest(got, expected),
          () =>
            `run ${run}: ${got.files} files, ${got.bytes} bytes, sha256 ${got.sha256.slice(0, 12)} (expected ${expected.files}, ${expected.bytes}, ${expected.sha256.slice(0, 12)})`,
        );
      }
    }
    bench.log(`sandbox: tree copy measured (${runs} round trips each, ${expected.files} files, ${expected.bytes} bytes)`);
    return { results: [figure(series, expected, checks)], notMeasured: [] };
  } finally {
    await sandbox.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

function figure(series: { readonly ours: Series; readonly anchor: Series }, expected: Digest, checks: Mismatches): BenchResult {
  const ours = percentiles(series.ours.roundTrip).p50;
  const anchor = percentiles(series.anchor.roundTrip).p50;
  const ratio = ours / anchor;
  return {
    name: copyFigureName,
    what: `a ${(expected.bytes / 1e6).toFixed(2)} MB tree (${expected.files} files) from host disk into a running sandbox and back to host disk, p50 of ${series.ours.roundTrip.length} round trips (in + out) each: ours packs one tar and sends it with putArchive, then sandbox.readTree and writes the files; the anchor is two docker CLI processes (docker cp in, docker cp out); every copy checked by bytes and SHA-256`,
    unit: 'ms',
    ours: sig3(ours),
    anchor: sig3(anchor),
    anchorName: 'docker cp in + docker cp out (CLI)',
    ratio,
    goal: `ratio <= ${goalRatio}`,
    pass: ratio <= goalRatio && checks.total === 0,
    details: {
      ...spreadDetails('oursIn', series.ours.in),
      ...spreadDetails('oursOut', series.ours.out),
      ...spreadDetails('anchorIn', series.anchor.in),
      ...spreadDetails('anchorOut', series.anchor.out),
      ...spreadDetails('oursRoundTrip', series.ours.roundTrip),
      ...spreadDetails('anchorRoundTrip', series.anchor.roundTrip),
      files: expected.files,
      bytes: expected.bytes,
      ...checks.details('ours', 'anchor'),
    },
  };
}
