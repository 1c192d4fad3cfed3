/**
 * Sandbox ready and reset, both against the same anchor: a fresh container from the same image and
 * with the same configuration as ours (`containerConfig`), created and started with dockerode, then
 * one exec of `true` read to its end, which is the least a task needs before its first command.
 *
 * - ready: `DockerSandbox.open`, which also connects (ping), opens the shell session and reads the
 *   base commit (`git rev-parse`), so it does more than the anchor;
 * - reset: `sandbox.reset()` after the repository was dirtied (a new file and a changed
 *   `app/calc.py`), the way a rollout reuses one container instead of starting a new one.
 *
 * Opens, anchors and resets are interleaved round by round so other work on the machine falls on
 * all three alike. After every reset the repository must be clean and `app/calc.py` back to its
 * committed text; every anchor exec must exit 0 and every open must know a 40-digit base commit.
 */
import type Docker from 'dockerode';
import { DockerSandbox, containerConfig } from '../server/src/sandbox/dockerSandbox.js';
import type { BenchResult } from './result.js';
import { percentiles } from './stats.js';
import { benchSpec, drain, Mismatches, removeContainer, sampleImage, sig3, spreadDetails, timed, type SandboxBench } from './sandboxSupport.js';

export const readyFigureName = 'sandbox-ready';
export const resetFigureName = 'sandbox-reset';

const readyGoal = 1.5;
const resetGoal = 0.25;
const rounds = 9;
const resetsPerRound = 4;
const resetWarmup = 3;
const anchorName = 'fresh container: create+start+exec true';

/**
 * The anchor: a container like ours, started and proven to run a command. A container whose start
 * fails is left to the sweep in `sandboxFigures.ts`, which removes everything with our run label.
 */
async function freshStart(bench: SandboxBench, round: number): Promise<{ ms: number; exitCode: number | null; container: Docker.Container }> {
  const config = containerConfig(benchSpec(bench, `fresh-start-${round}`), sampleImage);
  const { ms, value } = await timed(async () => {
    const container = await bench.docker.createContainer(config);
    await container.start();
    const exec = await container.exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
    await drain(await exec.start({}));
    return { container, exec };
  });
  // The exit code is read after the clock stops: the anchor is only asked to wait for the end.
  return { ms, exitCode: (await value.exec.inspect()).ExitCode, container: value.container };
}

/** Leaves the repository dirty in both ways a reset must undo: a changed tracked file and a new one. */
async function dirty(sandbox: DockerSandbox, original: string, i: number): Promise<void> {
  await sandbox.writeFile('app/calc.py', `${original}\n\ndef bench_${i}():\n    return ${i}\n`);
  await sandbox.writeFile(`bench_scratch_${i}.py`, `VALUE = ${i}\n`);
}

async function checkReset(sandbox: DockerSandbox, original: string, i: number, checks: Mismatches): Promise<void> {
  const status = await sandbox.exec(['git', 'status', '--porcelain', '--untracked-files=all']);
  const calc = (await sandbox.readFile('app/calc.py')).toString('utf8');
  const ok = status.exitCode === 0 && status.stdout === '' && calc === original;
  checks.check(
    'ours',
    ok,
    () => `after reset ${i}: git status ${JSON.stringify(status.stdout.slice(0, 120))}, calc.py ${calc === original ? 'restored' : 'still changed'}`,
  );
}

interface Samples {
  readonly ready: number[];
  readonly close: number[];
  readonly anchor: number[];
  readonly reset: number[];
}

async function oneRound(bench: SandboxBench, resetBox: DockerSandbox, original: string, round: number, samples: Samples, checks: Mismatches): Promise<void> {
  const opened = await timed(() => DockerSandbox.open(benchSpec(bench, `ready-${round}`)));
  checks.check('ours', /^[0-9a-f]{40}$/.test(opened.value.baseCommit), () => `open gave base commit ${JSON.stringify(opened.value.baseCommit)}`);
  samples.close.push((await timed(() => opened.value.close())).ms);

  const fresh = await freshStart(bench, round);
  checks.check('anchor', fresh.exitCode === 0, () => `exec of true in a fresh container reported exit code ${fresh.exitCode}`);
  await removeContainer(fresh.container);

  for (let i = 0; i < resetsPerRound; i++) {
    const n = round * resetsPerRound + i;
    await dirty(resetBox, original, n);
    samples.reset.push((await timed(() => resetBox.reset())).ms);
    await checkReset(resetBox, original, n, checks);
  }
  // The caller passes a throwaway `samples` for the warm-up round, so its cold start is not counted.
  samples.ready.push(opened.ms);
  samples.anchor.push(fresh.ms);
}

export async function benchLifecycle(bench: SandboxBench): Promise<BenchResult[]> {
  const resetBox = await DockerSandbox.open(benchSpec(bench, 'reset'));
  try {
    const original = (await resetBox.readFile('app/calc.py')).toString('utf8');
    const checks = new Mismatches();
    const warm: Samples = { ready: [], close: [], anchor: [], reset: [] };
    await oneRound(bench, resetBox, original, -1, warm, checks);
    for (let i = 0; i < resetWarmup; i++) {
      await dirty(resetBox, original, -2 - i);
      await resetBox.reset();
    }
    const samples: Samples = { ready: [], close: [], anchor: [], reset: [] };
    for (let round = 0; round < rounds; round++) await oneRound(bench, resetBox, original, round, samples, checks);
    bench.log(`sandbox: ready and reset measured (${samples.ready.length} opens, ${samples.anchor.length} fresh containers, ${samples.reset.length} resets)`);
    return figures(samples, checks);
  } finally {
    await resetBox.close();
  }
}

function figures(samples: Samples, checks: Mismatches): BenchResult[] {
  const anchor = percentiles(samples.anchor).p50;
  const ready = percentiles(samples.ready).p50;
  const reset = percentiles(samples.reset).p50;
  const common = { ...spreadDetails('anchor', samples.anchor), ...checks.details('ours', 'anchor') };
  return [
    {
      name: readyFigureName,
      what: `${sampleImage} until a command can run, p50 of ${samples.ready.length}: ours is DockerSandbox.open (daemon ping, create, start, shell session and the base-commit read \`git rev-parse HEAD\`, so it does more than the anchor); the anchor creates and starts the same container configuration and runs one exec of \`true\` to its end`,
      unit: 'ms',
      ours: sig3(ready),
      anchor: sig3(anchor),
      anchorName,
      ratio: ready / anchor,
      goal: `ratio <= ${readyGoal}`,
      pass: ready / anchor <= readyGoal && checks.total === 0,
      details: { ...spreadDetails('ours', samples.ready), ...spreadDetails('oursClose', samples.close), ...common },
    },
    {
      name: resetFigureName,
      what: `sandbox.reset() (git reset --hard + git clean -fd through the session) after a changed app/calc.py and a new file, p50 of ${samples.reset.length}, vs starting a fresh container instead (the ${readyFigureName} anchor, p50 of ${samples.anchor.length}); every reset checked clean`,
      unit: 'ms',
      ours: sig3(reset),
      anchor: sig3(anchor),
      anchorName,
      ratio: reset / anchor,
      goal: `ratio <= ${resetGoal}`,
      pass: reset / anchor <= resetGoal && checks.total === 0,
      details: { ...spreadDetails('ours', samples.reset), ...common },
    },
  ];
}
