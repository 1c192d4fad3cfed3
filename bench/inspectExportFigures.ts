/**
 * The Inspect export's figure (`--only inspect`, issue 40): a 1,000-episode run (the sample
 * episodes' trajectories copied under 1,000 episode ids, two attempts per task) exported as
 * `gp runs export --format inspect` does it, from its episodes in memory to the `.eval` file
 * written (mapping, serialising, deflating, writing), against writing the same log's JSON with
 * `JSON.stringify` to a file (the bytes any exporter must make), alternating, the median of five
 * each. Goal: at most twice the anchor. Reading the trajectories is the same for any exporter and
 * is left out of both; the whole command's time, reading included, is kept beside the figure.
 * Runnable on its own: `npx tsx bench/inspectExportFigures.ts`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sig3 } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';
import { repoRoot } from './yamlServers.js';
import { runCli } from '../server/src/cli/main.js';
import { buildEpisodeModel, type EpisodeModel } from '../server/src/episodes/index.js';
import { inspectEvalZip, inspectExport, inspectJson } from '../server/src/formats/index.js';
import { readTrajectory } from '../server/src/runs/index.js';

const figure = 'inspect-export-1000-episodes';
const episodes = 1000;
const samples = 5;

/** A run folder of `episodes` trajectories: the sample episodes under new ids and task ids, two attempts per task. */
function bigRun(dir: string): string {
  const run = join(dir, 'outputs', 'inspect-bench');
  mkdirSync(join(run, 'trajectories'), { recursive: true });
  const sources = ['sample-calc-add.jsonl', 'sample-version.jsonl'].map((n) => readFileSync(join(repoRoot, 'test/fixtures/trajectories', n), 'utf8'));
  for (let i = 0; i < episodes; i++) {
    const source = sources[i % sources.length] ?? '';
    const task = `bench-task-${String(Math.floor(i / 2)).padStart(4, '0')}`;
    const episode = `${task}#${(i % 2) + 1}`;
    const text = source
      .trimEnd()
      .split('\n')
      .map((l) => {
        const r = JSON.parse(l) as Record<string, unknown>;
        if ('episode_id' in r) r['episode_id'] = episode;
        if ('task_id' in r) r['task_id'] = task;
        if (typeof r['started_at'] === 'string') r['started_at'] = new Date(Date.parse('2026-11-29T00:00:00Z') + i * 1000).toISOString();
        return JSON.stringify(r);
      })
      .join('\n');
    writeFileSync(join(run, 'trajectories', `${task}-${(i % 2) + 1}.jsonl`), `${text}\n`);
  }
  writeFileSync(
    join(run, 'status.json'),
    JSON.stringify({
      state: 'finished',
      command: 'bench',
      pid: 1,
      host: 'bench',
      started_at: '2026-11-29T00:00:00Z',
      episodes: { total: episodes, finished: episodes, resolved: 0, errored: 0 },
    }),
  );
  return run;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchInspectExport(log: (line: string) => void): Promise<FigureOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'gp-bench-inspect-'));
  try {
    const run = bigRun(dir);
    const out = join(dir, 'out.eval');
    const anchorOut = join(dir, 'anchor.json');
    // Both arms start from the run's episodes in memory, read once outside the timing; the whole
    // command, reading included, is timed apart and kept beside the figure.
    const folder = join(run, 'trajectories');
    const models: EpisodeModel[] = [];
    for (const name of readdirSync(folder).sort()) {
      const read = await readTrajectory(join(folder, name));
      if (read !== undefined) models.push(buildEpisodeModel(read));
    }
    const ours: number[] = [];
    const anchor: number[] = [];
    const whole: number[] = [];
    const io = { out: () => undefined, err: (l: string) => log(`  ${l}`) };
    for (let i = 0; i < samples; i++) {
      let t = performance.now();
      const exported = inspectExport(models, { runName: 'inspect-bench', version: 'bench' });
      writeFileSync(out, inspectEvalZip(exported));
      ours.push(performance.now() - t);
      t = performance.now();
      writeFileSync(anchorOut, inspectJson(exported));
      anchor.push(performance.now() - t);
      t = performance.now();
      const code = await runCli(['runs', 'export', run, '--format', 'inspect', '--out', out], io, dir);
      whole.push(performance.now() - t);
      if (code !== 0) throw new Error(`gp runs export exited ${code}`);
    }
    const o = median(ours);
    const a = median(anchor);
    const evalMb = statSync(out).size / 1e6;
    const jsonMb = statSync(anchorOut).size / 1e6;
    log(
      `  ${figure}: export ${sig3(o)} ms (${evalMb.toFixed(1)} MB .eval) vs JSON.stringify ${sig3(a)} ms (${jsonMb.toFixed(1)} MB); whole command ${sig3(median(whole))} ms`,
    );
    return {
      results: [
        {
          name: figure,
          what: `a ${episodes}-episode run's episodes to a written .eval (map, serialise, deflate, write), median of ${samples}`,
          unit: 'ms',
          ours: o,
          anchor: a,
          anchorName: 'JSON.stringify of the same log written to a file',
          ratio: o / a,
          goal: 'ratio <= 2',
          pass: o / a <= 2,
          details: { eval_mb: Number(evalMb.toFixed(2)), json_mb: Number(jsonMb.toFixed(2)), whole_command_ms: Math.round(median(whole)) },
        },
      ],
      notMeasured: [],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchInspectExport((line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
