/**
 * `gp dataset verify` throughput (`--only verify`): certifying the seven sample tasks of
 * `datasets/samples.jsonl` (a run with no patch and one with the gold patch per task).
 *
 * - ours: `node dist/cli.js dataset verify datasets/samples.jsonl --parallel P` into a fresh run
 *   folder, to its exit, at P = 1, 2 and 4;
 * - anchor: what a person does by hand without it, measured in the same rounds: for every task,
 *   `node dist/cli.js task test datasets/samples.jsonl --task T` and then the same with
 *   `--patch docker/samples/<sample>/gold.diff`, one after another.
 *
 * Both sides use the Docker backend, each task in its own image, when the daemon answers (the
 * samples' images are built by `bash test/integration/setup.sh`), else the local backend; the
 * details say which. Rounds interleave the four commands so that load on the two cores falls on
 * each alike. A run whose verdicts are not seven `certified`, or a hand run whose grades are not
 * "unresolved, then resolved", fails the figure whatever its time.
 * `ratio` = ours at P = 1 / anchor (goal ≤ 1.1); the speed-ups at 2 and 4 are anchor / ours(P).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { dockerAvailable } from '../server/src/sandbox/index.js';
import type { BenchResult } from './result.js';
import { sig3 } from './sandboxSupport.js';
import { summarize } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

export const verifyFigureName = 'dataset-verify-samples';
const root = resolve(__dirname, '..');
const cli = join(root, 'dist', 'cli.js');
const dataset = 'datasets/samples.jsonl';
const rounds = 3;
const goalRatio = 1.1;

function gp(args: readonly string[]): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', () => undefined);
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, ms: performance.now() - started }));
  });
}

function sampleIds(): string[] {
  return readFileSync(join(root, dataset), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { task_id: string }).task_id);
}

async function verifyOnce(work: string, backend: string, parallel: number, round: number): Promise<{ ms: number; correct: boolean }> {
  const runDir = join(work, `verify-p${parallel}-${round}`);
  const r = await gp(['dataset', 'verify', dataset, '--backend', backend, '--parallel', String(parallel), '--run-dir', runDir]);
  return { ms: r.ms, correct: r.code === 0 && /7 tasks verified \(7 certified\)/.test(r.out) };
}

async function byHand(work: string, backend: string, ids: readonly string[], round: number): Promise<{ ms: number; correct: boolean }> {
  let ms = 0;
  let correct = true;
  for (const id of ids) {
    const runDir = join(work, `hand-${round}-${id}`);
    const empty = await gp(['task', 'test', dataset, '--task', id, '--backend', backend, '--run-dir', runDir]);
    const gold = await gp([
      'task',
      'test',
      dataset,
      '--task',
      id,
      '--backend',
      backend,
      '--run-dir',
      runDir,
      '--patch',
      join('docker', 'samples', id.replace(/^sample-/, ''), 'gold.diff'),
    ]);
    ms += empty.ms + gold.ms;
    correct &&= empty.code === 1 && gold.code === 0;
  }
  return { ms, correct };
}

export async function benchVerify(log: (line: string) => void): Promise<FigureOutcome> {
  const backend = (await dockerAvailable()) ? 'docker' : 'local';
  const ids = sampleIds();
  const work = mkdtempSync(join(tmpdir(), 'gp-bench-verify-'));
  try {
    // One unmeasured round of each, so images and files are warm on both sides.
    await verifyOnce(work, backend, 1, 0);
    await byHand(work, backend, ids.slice(0, 1), 0);
    const ours: Record<number, { ms: number; correct: boolean }[]> = { 1: [], 2: [], 4: [] };
    const anchor: { ms: number; correct: boolean }[] = [];
    for (let round = 1; round <= rounds; round++) {
      anchor.push(await byHand(work, backend, ids, round));
      for (const parallel of [1, 2, 4]) ours[parallel]?.push(await verifyOnce(work, backend, parallel, round));
      log(
        `  verify round ${round}/${rounds}: by hand ${Math.round(anchor[round - 1]?.ms ?? 0)} ms, verify ${[1, 2, 4].map((p) => `p${p} ${Math.round(ours[p]?.[round - 1]?.ms ?? 0)} ms`).join(', ')}`,
      );
    }
    const median = (values: readonly { ms: number }[]) => summarize(values.map((v) => v.ms)).median;
    const anchorMs = median(anchor);
    const [p1, p2, p4] = [1, 2, 4].map((p) => median(ours[p] ?? []));
    const correct = anchor.every((a) => a.correct) && [1, 2, 4].every((p) => (ours[p] ?? []).every((o) => o.correct));
    const ratio = (p1 ?? 0) / anchorMs;
    const result: BenchResult = {
      name: verifyFigureName,
      what: `gp dataset verify of the ${ids.length} sample tasks (no patch and gold patch each, ${backend} backend) at --parallel 1, median of ${rounds}`,
      unit: 'ms',
      ours: sig3(p1 ?? 0),
      anchor: sig3(anchorMs),
      anchorName: 'gp task test twice per task by hand (no patch, then --patch gold.diff)',
      ratio,
      goal: `ratio <= ${goalRatio}, every task certified`,
      pass: correct && ratio <= goalRatio,
      details: {
        backend,
        rounds,
        parallel2Ms: sig3(p2 ?? 0),
        parallel4Ms: sig3(p4 ?? 0),
        speedUpAt1: sig3(anchorMs / (p1 ?? 1)),
        speedUpAt2: sig3(anchorMs / (p2 ?? 1)),
        speedUpAt4: sig3(anchorMs / (p4 ?? 1)),
        wrongAnswers: anchor.filter((a) => !a.correct).length + [1, 2, 4].reduce((n, p) => n + (ours[p] ?? []).filter((o) => !o.correct).length, 0),
      },
    };
    return { results: [result], notMeasured: [] };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchVerify((line) => console.log(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
