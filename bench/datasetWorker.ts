/**
 * One dataset measurement in a fresh process, so its peak memory is its own: `read` iterates the
 * rows of a parquet file without converting them (the floor), `prepare` runs the whole
 * `gp dataset prepare` pipeline on it. Prints one JSON line: rows, milliseconds, peak RSS in KiB.
 *
 * Usage: `node --import tsx bench/datasetWorker.ts read|prepare r2e-gym|swebench FILE [OUT_DIR]`.
 */
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
  const started = performance.now();
  let rows: number;
  let converted: number | undefined;
  if (mode === 'read') rows = await readOnly(file);
  else {
    if (out === undefined) throw new Error('prepare needs an output folder');
    const report = await prepareDataset({
      kind,
      dataset: 'bench',
      requestedSplit: 'train',
      effectiveSplit: 'train',
      sources: [file],
      outDir: out,
      splitRule: kind === 'r2e-gym' ? { kind: 'fraction', fraction: 0.1 } : { kind: 'none' },
    });
    rows = report.rows_read;
    converted = report.converted;
  }
  const ms = performance.now() - started;
  const result: WorkerResult = { rows, ms, maxRssKiB: process.resourceUsage().maxRSS, ...(converted !== undefined ? { converted } : {}) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
