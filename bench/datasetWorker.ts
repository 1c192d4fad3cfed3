/**
 * One dataset measurement in a fresh process, so its peak memory is its own: `read` iterates the
 * rows of a parquet file without converting them (the floor), `prepare` runs the whole
 * `gp dataset prepare` pipeline on it. Each mode runs once unmeasured first, so both sides are
 * timed with their modules loaded and compiled (tsx compiles on first use, which would otherwise
 * land in whichever side ran first). Prints one JSON line: rows, milliseconds of the second run,
 * peak RSS in KiB over both runs.
 *
 * Usage: `node --import tsx bench/datasetWorker.ts read|prepare r2e-gym|swebench FILE [OUT_DIR]`.
 */
import { rmSync } from 'node:fs';
import { openRowSource } from '../server/src/datasets/rowSource.js';
import { prepareDataset, type DatasetKind } from '../server/src/datasets/prepare.js';

export interface WorkerResult {
  readonly rows: number;
  readonly ms: number;
  readonly maxRssKiB: number;
  readonly converted?: number;
}

async function readOnly(file: string): Promise<number> {
  const source = await openRowSource(file);
  let rows = 0;
  for await (const item of source.rows()) if (item.kind === 'row') rows++;
  return rows;
}

async function main(): Promise<void> {
  const [mode, kindArg, file, out] = process.argv.slice(2);
  if ((mode !== 'read' && mode !== 'prepare') || (kindArg !== 'r2e-gym' && kindArg !== 'swebench') || file === undefined) {
    throw new Error('usage: datasetWorker.ts read|prepare r2e-gym|swebench FILE [OUT_DIR]');
  }
  const kind: DatasetKind = kindArg;
  if (mode === 'prepare' && out === undefined) throw new Error('prepare needs an output folder');
  const once = async (dir: string): Promise<{ rows: number; converted?: number }> => {
    if (mode === 'read') return { rows: await readOnly(file) };
    const report = await prepareDataset({
      kind,
      dataset: 'bench',
      requestedSplit: 'train',
      effectiveSplit: 'train',
      sources: [file],
      outDir: dir,
      splitRule: kind === 'r2e-gym' ? { kind: 'fraction', fraction: 0.1 } : { kind: 'none' },
    });
    return { rows: report.rows_read, converted: report.converted };
  };
  await once(`${out ?? ''}-warmup`);
  if (out !== undefined) rmSync(`${out}-warmup`, { recursive: true, force: true });
  const started = performance.now();
  const { rows, converted } = await once(out ?? '');
  const ms = performance.now() - started;
  const result: WorkerResult = { rows, ms, maxRssKiB: process.resourceUsage().maxRSS, ...(converted !== undefined ? { converted } : {}) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
