/**
 * The code graph's build figure: the whole graph of a real repository on this machine (the Python
 * standard library, `/usr/lib/python3.11`, 600+ files) against the floor of any tree-sitter-based
 * graph, the bare parse of the same texts with the same parser.
 *
 * - ours: `buildCodeGraphFromFiles` on texts already in memory: parse, definitions, imports, calls,
 *   inherits and tests edges, ids, and the BM25 index;
 * - anchor: `parser.parse(text)` then `tree.delete()` for every file, nothing else.
 *
 * Reading from disk is outside both timings. Files that are not valid UTF-8 are left out of both
 * sides. Runs interleave ours and the anchor (alternating which goes first) after a warm-up of each,
 * so machine noise falls on both; the figure is the median of each side, and the details add the
 * ratio of the fastest runs and of the CPU time, which other work on the machine disturbs less.
 * The build is checked for a plausible graph (every file present, definitions and edges of every
 * kind found), so an empty graph cannot look fast.
 * Runnable on its own: `npx tsx bench/graphFigures.ts` prints the outcome as JSON.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { buildCodeGraphFromFiles, pythonParser, type CodeGraph, type SourceFile } from '../server/src/graph/index.js';
import type { BenchResult } from './result.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

export const graphFigureName = 'graph-build';

export const corpusRoot = '/usr/lib/python3.11';
const goalRatio = 1.5;
const runs = 9;
const minimumFiles = 500;

async function pythonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.name.endsWith('.py')) continue;
    const full = join(entry.parentPath, entry.name);
    // A link to a file counts, as it does for Python's import system.
    if (entry.isFile() || (entry.isSymbolicLink() && (await stat(full).catch(() => undefined))?.isFile() === true)) out.push(full);
  }
  return out.sort();
}

/** The corpus as texts: every `.py` file that decodes as UTF-8, with its path relative to the root. */
export async function loadCorpus(root: string): Promise<{ files: SourceFile[]; skipped: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files: SourceFile[] = [];
  let skipped = 0;
  for (const full of await pythonFiles(root)) {
    try {
      files.push({ path: relative(root, full).split(sep).join('/'), text: decoder.decode(await readFile(full)) });
    } catch {
      skipped += 1;
    }
  }
  return { files, skipped };
}

/** Wall-clock and CPU milliseconds of one run. */
interface Timing {
  readonly ms: number;
  readonly cpuMs: number;
}

async function timed<T>(work: () => Promise<T>): Promise<Timing & { value: T }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
}

async function bareParse(files: readonly SourceFile[]): Promise<Timing> {
  const { parser } = await pythonParser();
  return timed(async () => {
    for (const file of files) parser.parse(file.text)?.delete();
  });
}

function build(files: readonly SourceFile[]): Promise<Timing & { value: CodeGraph }> {
  return timed(() => buildCodeGraphFromFiles(files));
}

/** Throws when the graph is not plausibly the corpus's, so a broken build is never reported as fast. */
function checkGraph(graph: CodeGraph, files: readonly SourceFile[]): void {
  const { stats } = graph;
  if (stats.files !== files.length) throw new Error(`the graph has ${stats.files} files, the corpus ${files.length}`);
  if (stats.classes === 0 || stats.functions === 0 || stats.methods === 0)
    throw new Error(`the graph found no definitions of some kind: ${JSON.stringify(stats)}`);
  for (const kind of ['contains', 'imports', 'calls', 'inherits', 'tests'] as const) {
    if (stats.edges[kind] === 0) throw new Error(`the graph has no ${kind} edges`);
  }
}

function ratioOf(ours: number, anchor: number): number {
  return Math.round((ours / anchor) * 1000) / 1000;
}

export async function benchGraph(log: (line: string) => void = () => undefined): Promise<FigureOutcome> {
  if (!existsSync(corpusRoot)) return { results: [], notMeasured: [{ name: graphFigureName, reason: `${corpusRoot} is not on this machine` }] };
  const { files, skipped } = await loadCorpus(corpusRoot);
  if (files.length < minimumFiles) {
    return {
      results: [],
      notMeasured: [{ name: graphFigureName, reason: `${corpusRoot} has ${files.length} readable Python files; the figure needs ${minimumFiles}` }],
    };
  }
  const bytes = files.reduce((sum, f) => sum + Buffer.byteLength(f.text), 0);
  log(`graph: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB from ${corpusRoot} (${skipped} not UTF-8, left out)`);
  // Warm-up: the parser's wasm is loaded and both code paths are compiled before anything is timed.
  await bareParse(files);
  const warm = await build(files);
  checkGraph(warm.value, files);
  const ours: Timing[] = [];
  const floor: Timing[] = [];
  let graph = warm.value;
  for (let run = 0; run < runs; run++) {
    const oursFirst = run % 2 === 0;
    if (!oursFirst) floor.push(await bareParse(files));
    const built = await build(files);
    ours.push(built);
    graph = built.value;
    if (oursFirst) floor.push(await bareParse(files));
    log(`graph: run ${run + 1}/${runs}: build ${built.ms.toFixed(0)} ms, bare parse ${(floor[floor.length - 1]?.ms ?? 0).toFixed(0)} ms`);
  }
  checkGraph(graph, files);
  const o = summarize(ours.map((t) => t.ms));
  const a = summarize(floor.map((t) => t.ms));
  const oCpu = summarize(ours.map((t) => t.cpuMs));
  const aCpu = summarize(floor.map((t) => t.cpuMs));
  const ratio = o.median / a.median;
  const { stats } = graph;
  const result: BenchResult = {
    name: graphFigureName,
    what: `code graph of ${corpusRoot} (${files.length} files, texts in memory) against the bare tree-sitter parse of the same texts, median of ${runs} interleaved runs`,
    unit: 'ms',
    ours: o.median,
    anchor: a.median,
    anchorName: 'web-tree-sitter parse + delete (same parser)',
    ratio,
    goal: `ratio <= ${goalRatio}`,
    pass: ratio <= goalRatio,
    details: {
      files: files.length,
      skipped_not_utf8: skipped,
      megabytes: Math.round(bytes / 1e4) / 100,
      nodes: graph.nodes().length,
      classes: stats.classes,
      functions: stats.functions,
      methods: stats.methods,
      edges: graph.edges().length,
      ...Object.fromEntries(Object.entries(stats.edges).map(([kind, n]) => [`edges_${kind}`, n])),
      ours_seconds: Math.round(o.median) / 1000,
      floor_seconds: Math.round(a.median) / 1000,
      ours_min_ms: Math.round(o.min),
      floor_min_ms: Math.round(a.min),
      ratio_of_minimums: ratioOf(o.min, a.min),
      ours_cpu_median_ms: Math.round(oCpu.median),
      floor_cpu_median_ms: Math.round(aCpu.median),
      ratio_of_cpu_medians: ratioOf(oCpu.median, aCpu.median),
      ours_megabytes_per_second: Math.round((bytes / 1e3 / o.median) * 100) / 100,
      floor_megabytes_per_second: Math.round((bytes / 1e3 / a.median) * 100) / 100,
    },
  };
  return { results: [result], notMeasured: [] };
}

if (require.main === module) {
  benchGraph((line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
