/**
 * Where a step's own time goes (issue: "a lean step"): one `--parallel 1` rule-agent rollout of
 * the sample tasks in Docker, as `--only rollout` runs it, with every `DockerSandbox` method timed
 * and attributed to the action of the step it ran in. It prints, per action type, the steps'
 * environment time outside the task's commands (as the figure counts it) and the time of each
 * sandbox call inside them, so the share that is not a sandbox round trip (graph updates, diffs,
 * hints, recording) is the difference. Not a figure: a tool for finding the next thing to cut.
 *
 * Run: `npx tsx bench/stepProfile.ts` (the sample images must be built).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { experimentConfigSchema } from '../server/src/config/index.js';
import { containerReaper, episodeDepsFromConfig } from '../server/src/launch/index.js';
import { trajectoryLineSchema } from '../server/src/protocol/runs.js';
import { planEpisodes, runRollout } from '../server/src/rollout/index.js';
import { connectDocker } from '../server/src/sandbox/dockerClient.js';
import { DockerSandbox } from '../server/src/sandbox/dockerSandbox.js';
import { PythonCodeGraph } from '../server/src/graph/codeGraph.js';
import { sampleTasks } from './rolloutFigures.js';

/** One timed sandbox call: which method, when it started and how long it took. */
interface Call {
  readonly method: string;
  /** The action type of the step it ran in, or `outside` (opening, the graph's first build, closing). */
  readonly step: string;
  readonly ms: number;
}

const calls: Call[] = [];
/** The step running now (episodes run one at a time here). */
let current = 'outside';
const stepWall = new Map<string, number[]>();
const methods = ['exec', 'readFile', 'writeFile', 'listFiles', 'readTree', 'applyPatch', 'diff', 'reset'] as const;

function instrument(): void {
  const graph = PythonCodeGraph.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const update = graph['update'];
  if (update !== undefined)
    graph['update'] = function timedUpdate(this: unknown, ...args: unknown[]) {
      return timedCall('graphUpdate', () => update.apply(this, args));
    };
  const proto = DockerSandbox.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of methods) {
    const original = proto[method];
    if (original === undefined) continue;
    proto[method] = async function timedCall(this: unknown, ...args: unknown[]) {
      const step = current;
      const t0 = performance.now();
      try {
        return await original.apply(this, args);
      } finally {
        calls.push({ method, step, ms: performance.now() - t0 });
      }
    };
  }
}

async function timedCall<T>(method: string, call: () => Promise<T>): Promise<T> {
  const step = current;
  const t0 = performance.now();
  try {
    return await call();
  } finally {
    calls.push({ method, step, ms: performance.now() - t0 });
  }
}

async function main(): Promise<void> {
  instrument();
  const { docker } = await connectDocker();
  const tasks = await sampleTasks(docker, (line) => console.error(line));
  const config = experimentConfigSchema.parse({ sandbox: { backend: 'docker' }, rollout: { agent: 'rule' } });
  const runName = `profile-step-${process.pid}`;
  const root = mkdtempSync(join(tmpdir(), 'gp-profile-step-'));
  const runDir = join(root, runName);
  try {
    const reaper = containerReaper(config, runName);
    const deps = episodeDepsFromConfig(config, runName, runDir);
    const openEnv = deps.openEnv;
    // Each step of each environment marks the sandbox calls made while it runs.
    const wrapped: typeof deps = {
      ...deps,
      // The run directory's writes inside a step (the submit's test-run record, the repair's
      // pre-images) are timed as calls too: they are the step's own time as much as a round trip.
      envOptions: (task) => {
        const options = deps.envOptions(task);
        const { recordTestRun, recordPreimage } = options;
        return {
          ...options,
          ...(recordTestRun === undefined
            ? {}
            : { recordTestRun: (run: Parameters<typeof recordTestRun>[0]) => timedCall('recordTestRun', () => recordTestRun(run)) }),
          ...(recordPreimage === undefined
            ? {}
            : { recordPreimage: (path: string, content: Buffer | undefined) => timedCall('recordPreimage', () => recordPreimage(path, content)) }),
        };
      },
      openEnv: async (...args: Parameters<typeof openEnv>) => {
        const env = await openEnv(...args);
        const step = env.step.bind(env);
        env.step = async (input) => {
          current = 'type' in input && typeof input.type === 'string' ? input.type : 'invalid';
          const t0 = performance.now();
          try {
            return await step(input);
          } finally {
            stepWall.set(current, [...(stepWall.get(current) ?? []), performance.now() - t0]);
            current = 'outside';
          }
        };
        return env;
      },
    };
    const result = await runRollout(planEpisodes(tasks, 1), {
      runDir,
      runName,
      command: 'profile step',
      agent: 'rule',
      dataset: 'samples',
      parallel: 1,
      signal: new AbortController().signal,
      deps: wrapped,
      ...(reaper === undefined ? {} : { reapContainers: reaper }),
    });
    const own = new Map<string, number[]>();
    for (const t of result.report.tasks) {
      for (const line of readFileSync(join(runDir, t.trajectory), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const record = trajectoryLineSchema.parse(JSON.parse(line));
        if (record.type === 'step' && record.action !== undefined)
          own.set(record.action.type, [...(own.get(record.action.type) ?? []), record.timings.env_ms - record.timings.task_commands_ms]);
      }
    }
    const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
    const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    for (const [type, walls] of stepWall) {
      const ownMs = own.get(type) ?? [];
      console.log(
        `${type}: ${walls.length} steps, wall p50 ${median(walls).toFixed(1)} ms, own time (outside the task's commands) p50 ${median(ownMs).toFixed(1)} ms`,
      );
      const byMethod = new Map<string, number[]>();
      for (const c of calls.filter((x) => x.step === type)) byMethod.set(c.method, [...(byMethod.get(c.method) ?? []), c.ms]);
      for (const [method, ms] of [...byMethod].sort((a, b) => sum(b[1]) - sum(a[1]))) {
        console.log(
          `  ${method.padEnd(10)} ${String(ms.length).padStart(4)} calls, ${(sum(ms) / walls.length).toFixed(1)} ms per step, p50 ${median(ms).toFixed(1)} ms`,
        );
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
