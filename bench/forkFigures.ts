/**
 * The fork's figure (`--only fork`, issue 40): `gp trajectory fork FILE --step N` of each sample
 * episode at its last step (steps 1..N−1 replayed and checked, step N taken live by the rule agent,
 * in a run folder of its own) against replaying the whole episode to N by hand with
 * `gp trajectory replay` (a fresh sandbox, every recorded step executed and compared, nothing
 * written). Both run on the local backend in the same process, alternating, three rounds; the
 * figure is the ratio of the medians. The fork's extra work is its run folder (config, lock,
 * records, report) and the agent's live step.
 * Runnable on its own: `npx tsx bench/forkFigures.ts`.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from './result.js';
import { sig3 } from './sandboxSupport.js';
import type { FigureOutcome } from './yamlFigures.js';
import { repoRoot } from './yamlServers.js';
import { runCli } from '../server/src/cli/main.js';
import { readTrajectory } from '../server/src/runs/index.js';
import { errorMessage } from '../server/src/util/errors.js';

const forkFigure = 'fork-at-step-vs-replay';
const rounds = 3;
const episodes = ['sample-calc-add', 'sample-calc-add-unittest', 'sample-version'];

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export async function benchFork(log: (line: string) => void): Promise<FigureOutcome> {
  try {
    return { results: [await forkFigures(log)], notMeasured: [] };
  } catch (error) {
    return { results: [], notMeasured: [{ name: forkFigure, reason: errorMessage(error) }] };
  }
}

async function forkFigures(log: (line: string) => void): Promise<BenchResult> {
  const workspace = mkdtempSync(join(tmpdir(), 'gp-bench-fork-'));
  try {
    cpSync(join(repoRoot, 'test/e2e/fixtures/workbench'), workspace, { recursive: true });
    cpSync(join(repoRoot, 'docker/repoenv_sample/sample_repo'), join(workspace, 'repos/sample_repo'), { recursive: true });
    const quiet = { out: () => undefined, err: () => undefined };
    const runDir = join(workspace, 'outputs', 'fork-bench');
    const code = await runCli(
      ['rollout', 'datasets/sample/tasks.jsonl', '--config', 'configs/experiments/sample.yaml', '--backend', 'local', '--run-dir', runDir],
      quiet,
      workspace,
    );
    if (code !== 0 && code !== 1) throw new Error(`the sample rollout failed (exit ${code})`);
    const forks: number[] = [];
    const replays: number[] = [];
    let replayed = 0;
    for (let round = 0; round < rounds; round++) {
      let forkMs = 0;
      let replayMs = 0;
      for (const episode of episodes) {
        const file = join(runDir, 'trajectories', `${episode}.jsonl`);
        const steps = (await readTrajectory(file))?.steps.length ?? 0;
        if (steps === 0) throw new Error(`${episode} recorded no step`);
        const replayStarted = performance.now();
        const replay = await runCli(['trajectory', 'replay', file], quiet, workspace);
        replayMs += performance.now() - replayStarted;
        if (replay !== 0) throw new Error(`${episode} did not replay (exit ${replay})`);
        const forkStarted = performance.now();
        const fork = await runCli(
          ['trajectory', 'fork', file, '--step', String(steps), '--agent', 'rule', '--run-dir', join(workspace, 'outputs', `fork-${round}-${episode}`)],
          quiet,
          workspace,
        );
        forkMs += performance.now() - forkStarted;
        if (fork !== 0) throw new Error(`the fork of ${episode} at step ${steps} failed (exit ${fork})`);
        if (round === 0) replayed += steps - 1;
      }
      log(`  round ${round + 1}: forks ${forkMs.toFixed(0)} ms, replays ${replayMs.toFixed(0)} ms`);
      forks.push(forkMs);
      replays.push(replayMs);
    }
    const ours = median(forks);
    const anchor = median(replays);
    return {
      name: forkFigure,
      what: `gp trajectory fork of the ${episodes.length} sample episodes at their last step (${replayed} steps replayed and checked, the last taken live, a run folder each), local backend, median of ${rounds} rounds`,
      unit: 'ms',
      ours: sig3(ours),
      anchor: sig3(anchor),
      anchorName: 'gp trajectory replay of the same episodes (every step executed and compared, nothing written)',
      ratio: ours / anchor,
      goal: 'report (a fork replays what a replay does, plus a run folder and a live step)',
      pass: Number.isFinite(ours / anchor),
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchFork((line) => console.error(line)).then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
