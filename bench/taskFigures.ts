/**
 * The Tasks view figure (`--only tasks`): expanding a 5,000-task dataset node, the time until the
 * first page of items is there.
 *
 * - ours: a fresh `node dist/server.js --stdio` on a workspace whose `datasets/big.jsonl` holds
 *   5,000 generated SWE-bench-shaped tasks (`test/support/taskFiles.ts`, about 13 MB); from the
 *   view's `tasks/files` request (which reads and indexes the file) to the answer of the
 *   `tasks/page` request for its first 500 tasks, as the view sends them when it opens and the
 *   node is expanded. The server was started and initialised before the clock starts.
 * - anchor: reading the same file's bytes once (`fs.readFile`) in this process, measured in the
 *   same run between the samples. `ratio` = ours / anchor: what the index costs above the read.
 *
 * The details keep the later figures: the first page again once the file is indexed (an expand
 * after the listing), a later page (offset 2,500), and a filtered page. A sample whose answer does
 * not hold 500 tasks starting with `task-00000` fails the figure whatever its time.
 * Runnable on its own: `npx tsx bench/taskFigures.ts` prints the outcome as JSON.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { TaskFilesResult, TaskPageResult } from '../server/src/protocol/index.js';
import { withDeadline } from '../server/src/util/deadline.js';
import { writeTaskFile } from '../test/support/taskFiles.js';
import type { BenchResult } from './result.js';
import { sig3 } from './sandboxSupport.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';
import { startServerSession } from './serverSession.js';
import { ourServerBundle } from './yamlServers.js';

export const tasksFigureName = 'tasks-expand-5000-first-page';
const tasks = 5000;
const samples = 7;
const pageSize = 500;
const goalRatio = 30;
const requestTimeoutMs = 30_000;

function page(connection: MessageConnection, path: string, offset: number, filter: string | null = null): Promise<TaskPageResult> {
  return withDeadline(
    connection.sendRequest<TaskPageResult>('graphPlanner/tasks/page', { path, offset, limit: pageSize, filter }),
    requestTimeoutMs,
    'no tasks/page answer',
  );
}

interface Sample {
  readonly coldMs: number;
  readonly warmFirstMs: number;
  readonly laterMs: number;
  readonly filteredMs: number;
  readonly correct: boolean;
}

async function sample(root: string, file: string): Promise<Sample> {
  const session = await startServerSession(root);
  try {
    const { connection } = session;
    const started = performance.now();
    const listed = await withDeadline(connection.sendRequest<TaskFilesResult>('graphPlanner/tasks/files', {}), requestTimeoutMs, 'no tasks/files answer');
    const first = await page(connection, file, 0);
    const coldMs = performance.now() - started;
    let at = performance.now();
    const again = await page(connection, file, 0);
    const warmFirstMs = performance.now() - at;
    at = performance.now();
    const later = await page(connection, file, 2500);
    const laterMs = performance.now() - at;
    at = performance.now();
    const filtered = await page(connection, file, 0, 'org-3/');
    const filteredMs = performance.now() - at;
    const correct =
      listed.files.some((f) => f.path === file && f.tasks === tasks) &&
      first.tasks.length === pageSize &&
      first.tasks[0]?.taskId === 'task-00000' &&
      again.tasks.length === pageSize &&
      later.tasks[0]?.taskId === 'task-02500' &&
      filtered.matching === 714;
    return { coldMs, warmFirstMs, laterMs, filteredMs, correct };
  } finally {
    await session.stop();
  }
}

async function readOnce(file: string): Promise<number> {
  const started = performance.now();
  const bytes = await readFile(file);
  const ms = performance.now() - started;
  if (bytes.length === 0) throw new Error('the dataset file is empty');
  return ms;
}

export async function benchTasks(log: (line: string) => void): Promise<FigureOutcome> {
  const unavailable = process.env['GP_BENCH_OURS_UNAVAILABLE'] ?? '';
  if (unavailable !== '') return { results: [], notMeasured: [{ name: tasksFigureName, reason: unavailable }] };
  if (!existsSync(ourServerBundle))
    return { results: [], notMeasured: [{ name: tasksFigureName, reason: `${ourServerBundle} is missing; run node scripts/build.mjs` }] };
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-tasks-'));
  try {
    mkdirSync(join(root, 'datasets'));
    const file = join(root, 'datasets', 'big.jsonl');
    writeTaskFile(file, { tasks });
    // One unmeasured round, so both sides start with the file in the page cache.
    await readOnce(file);
    await sample(root, file);
    const ours: Sample[] = [];
    const anchor: number[] = [];
    for (let i = 0; i < samples; i++) {
      anchor.push(await readOnce(file));
      ours.push(await sample(root, file));
      log(`  tasks sample ${i + 1}/${samples}: first page ${Math.round(ours[i]?.coldMs ?? 0)} ms, read ${(anchor[i] ?? 0).toFixed(1)} ms`);
    }
    const median = (values: readonly number[]) => summarize(values).median;
    const oursMs = median(ours.map((s) => s.coldMs));
    const anchorMs = median(anchor);
    const ratio = oursMs / anchorMs;
    const correct = ours.every((s) => s.correct);
    const result: BenchResult = {
      name: tasksFigureName,
      what: `fresh server: tasks/files then tasks/page of the first ${pageSize} of ${tasks.toLocaleString('en-US')} tasks (a ${(Buffer.byteLength(await readFile(file)) / 1e6).toFixed(1)} MB JSONL), median of ${samples}`,
      unit: 'ms',
      ours: sig3(oursMs),
      anchor: sig3(anchorMs),
      anchorName: 'reading the file bytes once',
      ratio,
      goal: `ratio <= ${goalRatio}, every answer right`,
      pass: correct && ratio <= goalRatio,
      details: {
        samples,
        oursP90Ms: sig3(summarize(ours.map((s) => s.coldMs)).p90),
        indexedFirstPageMs: sig3(median(ours.map((s) => s.warmFirstMs))),
        laterPageMs: sig3(median(ours.map((s) => s.laterMs))),
        filteredPageMs: sig3(median(ours.map((s) => s.filteredMs))),
        wrongAnswers: ours.filter((s) => !s.correct).length,
      },
    };
    return { results: [result], notMeasured: [] };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchTasks((line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
