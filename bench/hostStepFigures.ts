/**
 * A training step through a sandbox host (`--only host-step`): the road of `gp train --ray`
 * (ARCHITECTURE.md §3, "A training step's round trip") without Verl. The bench process is the agent
 * loop's client and the front door (an `EnvService` with a `HostPool`, as `gp train` starts them);
 * the host is a real `gp sandbox host` process, started as Ray's actor starts it (the spec on
 * standard input, which stays open as its lifeline), registered with the pool. Episodes are the
 * sample tasks in Docker, their replies from the host's scripted policy (the rule agent, as in
 * `gp train --smoke`), one episode at a time, alternating between two roads:
 *
 * - through the front door: client → front door → host → episode, two HTTP hops per step;
 * - straight to the host: the same client talking to the host's own service with the host's URL
 *   and token, one HTTP hop per step, which is what a step would cost if the agent loop reached
 *   the host itself.
 *
 * Figures, per step, the step request's round trip minus the task's own command time (the
 * trajectory's `task_commands_ms`), p50:
 * - `host-step-overhead-per-step`: through the front door, against the sandbox's command round
 *   trip (p50 of `sandbox.exec(['true'])`), the anchor of `service-overhead-per-step`.
 * - `host-step-front-door-share`: through the front door against straight to the host: what the
 *   front door's hop adds to a step.
 *
 * Containers carry `graph-planner.run=bench-host-step-<pid>` (the host reaps them when it ends)
 * or `bench-host-step-exec-<pid>` (the anchor's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { EnvService, HostPool } from '../server/src/cluster/index.js';
import { experimentConfigSchema } from '../server/src/config/index.js';
import { withAbsolutePaths } from '../server/src/datasets/index.js';
import { episodeDepsFromConfig } from '../server/src/launch/index.js';
import { hostCloseReplySchema, hostSpecSchema } from '../server/src/protocol/sandboxHosts.js';
import type { PlannedTask } from '../server/src/rollout/index.js';
import { writeEpisodeFiles } from '../server/src/runs/index.js';
import { connectDocker } from '../server/src/sandbox/dockerClient.js';
import { reapContainers } from '../server/src/sandbox/containers.js';
import { errorMessage } from '../server/src/util/errors.js';
import type { BenchResult } from './result.js';
import { execRoundTrips, sampleTasks } from './rolloutFigures.js';
import { sampleImage, sig3, spreadDetails } from './sandboxSupport.js';
import { call, taskCommandMs } from './serviceFigures.js';
import { percentiles } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

const names = ['host-step-overhead-per-step', 'host-step-front-door-share'] as const;
const root = resolve('.');

interface Road {
  /** Per step: the client's round trip of the step request. */
  readonly stepMs: number[];
  /** Per step: the same minus the task's own command time. */
  readonly overheads: number[];
  errors: number;
}

interface Endpoint {
  readonly url: string;
  readonly token: string;
  /** Where the episode's files land: the front door writes them itself; straight to the host, the client writes the close's files. */
  readonly runDir: string;
  readonly direct: boolean;
}

/** One episode on `at`, as the agent loop drives it: create, then the policy's reply and a step per turn, then close. */
async function episode(at: Endpoint, key: string, taskId: string, road: Road): Promise<void> {
  const created = await call(at.url, at.token, 'POST', '/episodes', {
    client_key: key,
    task_id: taskId,
    group_id: key,
    ...(at.direct ? { episode_id: key } : {}),
  });
  const id = String(created['episode_id']);
  const path = `/episodes/${encodeURIComponent(id)}`;
  const times: number[] = [];
  for (let turn = 1; ; turn++) {
    const { reply } = await call(at.url, at.token, 'GET', `${path}/policy`);
    const t0 = performance.now();
    const step = await call(at.url, at.token, 'POST', `${path}/step`, { turn, reply });
    times.push(performance.now() - t0);
    if (step['done'] === true) break;
  }
  const closed = await call(at.url, at.token, 'POST', `${path}/close`, {});
  if (at.direct) {
    const answer = hostCloseReplySchema.parse(closed);
    await writeEpisodeFiles(at.runDir, answer.files);
    if ('error' in answer.outcome || answer.outcome.termination_reason === 'error') road.errors++;
  } else if (closed['termination_reason'] === 'error') road.errors++;
  const commands = taskCommandMs(at.runDir, id);
  times.forEach((ms, i) => {
    road.stepMs.push(ms);
    road.overheads.push(Math.max(0, ms - (commands[i] ?? 0)));
  });
}

/** A `gp sandbox host` process as Ray's actor starts it; its standard input is its lifeline. */
function startHost(spec: unknown, node: string): { child: ChildProcess; stderr: string[] } {
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'sandbox', 'host', '--spec', '-', '--node', node, '--slots', '2'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean).slice(-20)));
  child.stdin?.write(`${JSON.stringify(spec)}\n`);
  return { child, stderr };
}

export async function benchHostStep(log: (line: string) => void = (line) => console.error(line)): Promise<FigureOutcome> {
  const notMeasured = (reason: string): FigureOutcome => ({ results: [], notMeasured: names.map((name) => ({ name, reason })) });
  if (!existsSync(join(root, 'dist', 'cli.js'))) return notMeasured('dist/cli.js is not built (npm run build)');
  let docker: Docker;
  try {
    ({ docker } = await connectDocker());
    await docker.getImage(sampleImage).inspect();
  } catch (error) {
    return notMeasured(`Docker or ${sampleImage} is not available (${errorMessage(error)})`);
  }
  const tasks: PlannedTask[] = await sampleTasks(docker, log);
  if (tasks.length === 0) return notMeasured('none of the sample tasks has its image on this engine');
  const perRoad = Number(process.env['GP_BENCH_HOST_STEP_EPISODES'] ?? 9);
  const run = `bench-host-step-${process.pid}`;
  const anchorRun = `bench-host-step-exec-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'gp-bench-host-step-'));
  const pool = new HostPool({ healthIntervalMs: 1000 });
  let host: { child: ChildProcess; stderr: string[] } | undefined;
  let front: EnvService | undefined;
  try {
    const registry = await pool.start();
    const configText = 'sandbox:\n  backend: docker\nrollout:\n  agent: rule\n';
    const spec = hostSpecSchema.parse({
      run_name: run,
      registry,
      config_text: configText,
      tasks_text: tasks.map((t) => JSON.stringify(withAbsolutePaths(t.task, t.baseDir))).join('\n') + '\n',
      scripted_policy: true,
      episode_deadline_ms: 600_000,
      cli: [process.execPath, join(root, 'dist', 'cli.js')],
    });
    host = startHost(spec, 'bench-node');
    if (!(await pool.waitForHosts(1, 60_000, new AbortController().signal)))
      return notMeasured(`the sandbox host did not register in 60 s: ${host.stderr.slice(-3).join(' | ')}`);
    const lease = pool.tryAcquire({});
    if (lease === undefined) return notMeasured('the sandbox host registered with no free slot');
    const { url: hostUrl, token: hostToken } = lease.host.registration;
    lease.release();
    const runDir = join(dir, run);
    const config = experimentConfigSchema.parse({ sandbox: { backend: 'docker' }, rollout: { agent: 'rule' } });
    front = new EnvService({
      runDir,
      tasks: new Map(tasks.map((t) => [t.task.task_id, t])),
      deps: episodeDepsFromConfig(config, run, runDir),
      maxOpen: 2,
      episodeDeadlineMs: 600_000,
      hosts: pool,
    });
    const door = await front.start();
    const roads = {
      front: { url: door.url, token: door.token, runDir, direct: false },
      host: { url: hostUrl, token: hostToken, runDir: join(dir, 'direct'), direct: true },
    } as const;
    const through: Road = { stepMs: [], overheads: [], errors: 0 };
    const straight: Road = { stepMs: [], overheads: [], errors: 0 };
    const roundTrips = await execRoundTrips(anchorRun);
    // One unmeasured episode on each road warms both processes; then the roads alternate, each
    // round starting with the other, so load from other work falls on both alike.
    const warm: Road = { stepMs: [], overheads: [], errors: 0 };
    await episode(roads.front, 'warm-front', tasks[0]?.task.task_id ?? '', warm);
    await episode(roads.host, 'warm-host', tasks[0]?.task.task_id ?? '', warm);
    for (let i = 0; i < perRoad; i++) {
      const taskId = tasks[i % tasks.length]?.task.task_id ?? '';
      const order = i % 2 === 0 ? (['front', 'host'] as const) : (['host', 'front'] as const);
      for (const which of order) await episode(roads[which], `${which}-${i}`, taskId, which === 'front' ? through : straight);
    }
    roundTrips.push(...(await execRoundTrips(anchorRun)));
    log(
      `host-step: ${through.overheads.length} steps through the front door, ${straight.overheads.length} straight to the host; ${roundTrips.length} exec round trips`,
    );
    const anchorRt = percentiles(roundTrips).p50;
    const throughP50 = percentiles(through.overheads).p50;
    const straightP50 = percentiles(straight.overheads).p50;
    const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    const clean = through.errors === 0 && straight.errors === 0;
    const results: BenchResult[] = [
      {
        name: names[0],
        what: `per step, the step request's round trip through the front door and a gp sandbox host process (two HTTP hops on loopback) minus the task's own command time, p50 of ${through.overheads.length} steps of ${perRoad} rule-agent episodes one at a time in Docker, vs p50 of ${roundTrips.length} sandbox.exec(['true']) round trips`,
        unit: 'ms',
        ours: sig3(throughP50),
        anchor: sig3(anchorRt),
        anchorName: 'sandbox.exec round trip',
        ratio: throughP50 / anchorRt,
        goal: 'ratio < 2',
        pass: throughP50 / anchorRt < 2 && clean,
        details: {
          ...spreadDetails('ours', through.overheads),
          ...spreadDetails('anchor', roundTrips),
          straightToHostOverheadP50Ms: sig3(straightP50),
          straightToHostRatio: sig3(straightP50 / anchorRt),
          errors: through.errors + straight.errors,
        },
      },
      {
        name: names[1],
        what: `per step, the same overhead through the front door vs straight to the host's own service (one HTTP hop), p50 over ${perRoad} episodes each, alternating`,
        unit: 'ms',
        ours: sig3(throughP50),
        anchor: sig3(straightP50),
        anchorName: 'straight to the host',
        ratio: throughP50 / straightP50,
        goal: 'reported',
        pass: clean,
        details: {
          ...spreadDetails('ours', through.overheads),
          ...spreadDetails('anchor', straight.overheads),
          frontDoorMsP50: sig3(throughP50 - straightP50),
          // The mean, not the p50: a step's whole time mixes cheap moves with test runs of seconds.
          wholeStepThroughMeanMs: sig3(mean(through.stepMs)),
          wholeStepStraightMeanMs: sig3(mean(straight.stepMs)),
          frontDoorShareOfMeanStep: sig3((throughP50 - straightP50) / mean(through.stepMs)),
          errors: through.errors + straight.errors,
        },
      },
    ];
    return { results, notMeasured: [] };
  } catch (error) {
    return notMeasured(`${errorMessage(error)}${host === undefined ? '' : ` (host: ${host.stderr.slice(-3).join(' | ')})`}`);
  } finally {
    await front?.close().catch(() => undefined);
    await pool.shutdownHosts(30_000).catch(() => undefined);
    if (host !== undefined && host.child.exitCode === null) {
      const exited = new Promise<void>((done) => host?.child.once('exit', () => done()));
      host.child.stdin?.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      if (host.child.exitCode === null) host.child.kill('SIGKILL');
    }
    await pool.close();
    await reapContainers({ run, includeLive: true, docker }).catch(() => undefined);
    await reapContainers({ run: anchorRun, includeLive: true, docker }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchHostStep().then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
