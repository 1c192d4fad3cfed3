/**
 * The environment service figures (`--only service`): real rule-agent episodes of the sample tasks
 * in Docker, driven through the service over HTTP on loopback by a client shaped like the Python
 * agent loop (create, then for each turn the reply and a step, then close). The replies come from
 * the service's scripted policy (the rule agent, as in `gp train --smoke`), so the work per episode
 * is the same as a rollout's with the rule agent.
 *
 * - `service-overhead-per-step`: per step, the step request's round trip seen by the client minus
 *   the time of the commands the task itself runs (the trajectory's `task_commands_ms`), p50 at one
 *   episode at a time, against the sandbox's command round trip (p50 of `sandbox.exec(['true'])`).
 *   Goal: under two round trips.
 * - `service-episodes-per-minute`: wall time per episode through the service against `gp rollout`
 *   (runRollout) on the same episodes, one at a time. Goal: the service adds under 10%.
 * - `service-throughput-32`: the same at 32 episodes at once (the service's cap 32, the rollout's
 *   --parallel 32): throughput limited by the sandboxes, not the service, so again under 10%.
 *
 * Containers carry `graph-planner.run=bench-service-*-<pid>` and are removed at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { createRuleAgent } from '../server/src/agents/index.js';
import { experimentConfigSchema, type ExperimentConfig } from '../server/src/config/index.js';
import { containerReaper, episodeDepsFromConfig } from '../server/src/launch/index.js';
import { trajectoryLineSchema } from '../server/src/protocol/runs.js';
import { planEpisodes, runRollout, type PlannedTask } from '../server/src/rollout/index.js';
import { runLayout } from '../server/src/runs/index.js';
import { connectDocker } from '../server/src/sandbox/dockerClient.js';
import { reapContainers } from '../server/src/sandbox/containers.js';
import { EnvService } from '../server/src/cluster/index.js';
import { errorMessage } from '../server/src/util/errors.js';
import type { BenchResult } from './result.js';
import { execRoundTrips, sampleTasks } from './rolloutFigures.js';
import { sampleImage, sig3, spreadDetails } from './sandboxSupport.js';
import { percentiles } from './stats.js';
import type { FigureOutcome } from './yamlFigures.js';

const names = ['service-overhead-per-step', 'service-episodes-per-minute', 'service-throughput-32'] as const;

interface ServiceMeasure {
  readonly wallMs: number;
  readonly episodes: number;
  /** Per step: the client's round trip of the step request minus the task's own command time. */
  readonly overheads: number[];
  readonly errors: number;
}

/** One JSON request as the agent loop's client sends it; any status but 200 rejects. */
export function call(url: string, token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payload.length) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const value = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
          if (res.statusCode === 200) resolve(value);
          else reject(new Error(`${method} ${path}: ${res.statusCode ?? '?'} ${JSON.stringify(value)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The task's own command time of each step of an episode, from its trajectory. */
export function taskCommandMs(runDir: string, episodeId: string): number[] {
  return readFileSync(runLayout(runDir).trajectory(episodeId), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => trajectoryLineSchema.parse(JSON.parse(l)))
    .flatMap((r) => (r.type === 'step' ? [r.timings.task_commands_ms] : []));
}

async function throughService(config: ExperimentConfig, episodes: readonly PlannedTask[], concurrency: number, root: string): Promise<ServiceMeasure> {
  const runName = `bench-service-c${concurrency}-${process.pid}`;
  const runDir = join(root, runName);
  const service = new EnvService({
    runDir,
    tasks: new Map(episodes.map((t) => [t.task.task_id, t])),
    deps: episodeDepsFromConfig(config, runName, runDir),
    maxOpen: concurrency,
    episodeDeadlineMs: 600_000,
    scriptedPolicy: () => createRuleAgent(),
  });
  const { url, token } = await service.start();
  const queue = [...episodes.keys()];
  const stepTimes: { episode: string; turn: number; ms: number }[] = [];
  let errors = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const task = episodes[next]?.task.task_id ?? '';
      const created = await call(url, token, 'POST', '/episodes', { client_key: `bench-${next}`, task_id: task, group_id: `g${next}` });
      const id = String(created['episode_id']);
      for (let turn = 1; ; turn++) {
        const { reply } = await call(url, token, 'GET', `/episodes/${encodeURIComponent(id)}/policy`);
        const t0 = performance.now();
        const step = await call(url, token, 'POST', `/episodes/${encodeURIComponent(id)}/step`, { turn, reply });
        stepTimes.push({ episode: id, turn, ms: performance.now() - t0 });
        if (step['done'] === true) break;
      }
      const closed = await call(url, token, 'POST', `/episodes/${encodeURIComponent(id)}/close`, {});
      if (closed['termination_reason'] === 'error') errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  await service.close();
  const commandMs = new Map<string, number[]>();
  const overheads = stepTimes.map((s) => {
    const known = commandMs.get(s.episode) ?? taskCommandMs(runDir, s.episode);
    commandMs.set(s.episode, known);
    return Math.max(0, s.ms - (known[s.turn - 1] ?? 0));
  });
  return { wallMs, episodes: episodes.length, overheads, errors };
}

async function throughRollout(
  config: ExperimentConfig,
  tasks: readonly PlannedTask[],
  attempts: number,
  parallel: number,
  root: string,
): Promise<{ wallMs: number; episodes: number; errors: number }> {
  const runName = `bench-service-rollout-p${parallel}-${process.pid}`;
  const runDir = join(root, runName);
  const reaper = containerReaper(config, runName);
  const started = performance.now();
  const result = await runRollout(planEpisodes(tasks, attempts), {
    runDir,
    runName,
    command: `bench service anchor --parallel ${parallel}`,
    agent: 'rule',
    dataset: 'sample tasks',
    parallel,
    signal: new AbortController().signal,
    deps: episodeDepsFromConfig(config, runName, runDir),
    ...(reaper === undefined ? {} : { reapContainers: reaper }),
  });
  return {
    wallMs: performance.now() - started,
    episodes: result.report.total,
    errors: result.report.tasks.filter((t) => t.termination_reason === 'error').length,
  };
}

function repeated(tasks: readonly PlannedTask[], attempts: number): PlannedTask[] {
  // The service keys tasks by id; the same task may be created many times (one episode per client key).
  return planEpisodes(tasks, attempts).map((e) => tasks.find((t) => t.task.task_id === e.task.task_id) ?? (tasks[0] as PlannedTask));
}

export async function benchService(log: (line: string) => void = (line) => console.error(line)): Promise<FigureOutcome> {
  let docker: Docker;
  try {
    ({ docker } = await connectDocker());
    await docker.getImage(sampleImage).inspect();
  } catch (error) {
    return { results: [], notMeasured: names.map((name) => ({ name, reason: `Docker or ${sampleImage} is not available (${errorMessage(error)})` })) };
  }
  const tasks = await sampleTasks(docker, log);
  if (tasks.length === 0) return { results: [], notMeasured: names.map((name) => ({ name, reason: 'none of the sample tasks has its image on this engine' })) };
  const config = experimentConfigSchema.parse({ sandbox: { backend: 'docker' }, rollout: { agent: 'rule' } });
  const root = mkdtempSync(join(tmpdir(), 'gp-bench-service-'));
  const anchorRun = `bench-service-exec-${process.pid}`;
  try {
    const roundTrips = await execRoundTrips(anchorRun);
    const oneAttempts = Math.max(1, Math.ceil(12 / tasks.length));
    const manyAttempts = Math.ceil(32 / tasks.length);
    // Interleaved, so load from other work falls on both sides alike.
    const rolloutOne = await throughRollout(config, tasks, oneAttempts, 1, root);
    const serviceOne = await throughService(config, repeated(tasks, oneAttempts), 1, root);
    log(
      `service: one at a time: ${serviceOne.episodes} episodes in ${(serviceOne.wallMs / 1000).toFixed(1)} s through the service, ${rolloutOne.episodes} in ${(rolloutOne.wallMs / 1000).toFixed(1)} s by gp rollout`,
    );
    const serviceMany = await throughService(config, repeated(tasks, manyAttempts), 32, root);
    const rolloutMany = await throughRollout(config, tasks, manyAttempts, 32, root);
    log(
      `service: 32 at once: ${serviceMany.episodes} episodes in ${(serviceMany.wallMs / 1000).toFixed(1)} s through the service, ${rolloutMany.episodes} in ${(rolloutMany.wallMs / 1000).toFixed(1)} s by gp rollout`,
    );
    roundTrips.push(...(await execRoundTrips(anchorRun)));
    const anchorRt = percentiles(roundTrips).p50;
    const overheadP50 = percentiles(serviceOne.overheads).p50;
    const perEpisode = (m: { wallMs: number; episodes: number }) => m.wallMs / 1000 / Math.max(1, m.episodes);
    const perMinute = (m: { wallMs: number; episodes: number }) => sig3((m.episodes * 60_000) / m.wallMs);
    const results: BenchResult[] = [
      {
        name: names[0],
        what: `per step, the step request's round trip through the service (HTTP on loopback, parse, environment, render) minus the task's own command time, p50 of ${serviceOne.overheads.length} steps of ${serviceOne.episodes} rule-agent episodes one at a time in Docker, vs p50 of ${roundTrips.length} sandbox.exec(['true']) round trips`,
        unit: 'ms',
        ours: sig3(overheadP50),
        anchor: sig3(anchorRt),
        anchorName: 'sandbox.exec round trip',
        ratio: overheadP50 / anchorRt,
        goal: 'ratio < 2',
        pass: overheadP50 / anchorRt < 2 && serviceOne.errors === 0,
        details: {
          ...spreadDetails('ours', serviceOne.overheads),
          ...spreadDetails('anchor', roundTrips),
          overheadAt32P50Ms: sig3(percentiles(serviceMany.overheads).p50),
          errors: serviceOne.errors,
        },
      },
      {
        name: names[1],
        what: `wall time per episode of ${serviceOne.episodes} rule-agent episodes on the sample tasks in Docker, one at a time, through the service vs gp rollout --parallel 1 on the same episodes`,
        unit: 's/episode',
        ours: sig3(perEpisode(serviceOne)),
        anchor: sig3(perEpisode(rolloutOne)),
        anchorName: 'gp rollout --parallel 1',
        ratio: perEpisode(serviceOne) / perEpisode(rolloutOne),
        goal: 'ratio <= 1.1',
        pass: perEpisode(serviceOne) / perEpisode(rolloutOne) <= 1.1 && serviceOne.errors === 0 && rolloutOne.errors === 0,
        details: { oursEpisodesPerMin: perMinute(serviceOne), anchorEpisodesPerMin: perMinute(rolloutOne) },
      },
      {
        name: names[2],
        what: `wall time per episode of ${serviceMany.episodes} rule-agent episodes on the sample tasks in Docker, 32 at once, through the service (cap 32) vs gp rollout --parallel 32 on the same episodes; ${cpus().length} cores`,
        unit: 's/episode',
        ours: sig3(perEpisode(serviceMany)),
        anchor: sig3(perEpisode(rolloutMany)),
        anchorName: 'gp rollout --parallel 32',
        ratio: perEpisode(serviceMany) / perEpisode(rolloutMany),
        goal: 'ratio <= 1.1',
        pass: perEpisode(serviceMany) / perEpisode(rolloutMany) <= 1.1 && serviceMany.errors === 0 && rolloutMany.errors === 0,
        details: {
          oursEpisodesPerMin: perMinute(serviceMany),
          anchorEpisodesPerMin: perMinute(rolloutMany),
          oursErrors: serviceMany.errors,
          anchorErrors: rolloutMany.errors,
        },
      },
    ];
    return { results, notMeasured: [] };
  } catch (error) {
    return { results: [], notMeasured: names.map((name) => ({ name, reason: errorMessage(error) })) };
  } finally {
    await reapContainers({ run: anchorRun, includeLive: true, docker }).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchService().then(
    (outcome) => console.log(JSON.stringify(outcome, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
