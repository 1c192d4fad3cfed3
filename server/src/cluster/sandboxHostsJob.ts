/**
 * Starting a run's sandbox hosts on a Ray cluster (docs/sandbox-hosts.md): the front door's
 * registry, the host spec (0600, in the run folder's `sandbox_hosts/`), and one Ray job whose
 * driver (python/graph_planner_verl/sandbox_hosts.py) puts a host on every node that offers
 * `gp_sandbox_slots`. Returns once every such node's host has registered, or fails saying why
 * (no node offers slots, the job failed, a host did not come up in time). Stopping ends the job,
 * and with it every actor and host; the hosts end their episodes and remove their containers.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { withAbsolutePaths } from '../datasets/index.js';
import { hostSpecSchema, type HostSpec } from '../protocol/sandboxHosts.js';
import type { PlannedTask } from '../rollout/index.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { errorMessage } from '../util/errors.js';
import { HostPool } from './hostPool.js';
import { RayJobsClient } from './rayJobs.js';
import type { ServicePrompt } from './serviceEpisode.js';
import { launchRayJob, raySubmissionId, shellCommand, type TrainerHandle } from './jobLaunch.js';

export interface SandboxHostsOptions {
  readonly ray: string;
  readonly runName: string;
  readonly runDir: string;
  /** The run's resolved config file, which every host runs with. */
  readonly resolvedConfig: string;
  readonly tasks: readonly PlannedTask[];
  readonly scriptedPolicy: boolean;
  readonly prompt?: ServicePrompt;
  readonly episodeDeadlineMs: number;
  readonly python: string;
  readonly adapterDir: string;
  readonly cli: readonly string[];
  /** Where the registry listens: loopback, unless the hosts run on other machines. */
  readonly listen: string;
  /** How long the hosts get to register. */
  readonly startTimeoutMs?: number;
  readonly onLine: (line: string) => void;
  readonly log: (line: string) => void;
  readonly signal: AbortSignal;
}

export interface SandboxHosts {
  readonly pool: HostPool;
  readonly job: TrainerHandle;
  /** Ends the job (and so every host) and the registry. */
  stop(): Promise<void>;
}

/** The driver's first line: how many nodes offer slots, so the front door knows how many hosts to wait for. */
const nodesLine = /^gp sandbox hosts: (\d+) node\(s\) offer (\d+) slot\(s\)/;

export async function startSandboxHosts(options: SandboxHostsOptions): Promise<SandboxHosts> {
  const pool = new HostPool({ listen: options.listen, log: options.log });
  const registry = await pool.start();
  const dir = join(options.runDir, 'sandbox_hosts');
  await mkdir(dir, { recursive: true });
  const spec: HostSpec = hostSpecSchema.parse({
    run_name: options.runName,
    registry,
    config_text: await readFile(options.resolvedConfig, 'utf8'),
    // Paths in a task are relative to its file; the hosts read the tasks elsewhere, so they become absolute.
    tasks_text: options.tasks.map((t) => JSON.stringify(withAbsolutePaths(t.task, t.baseDir))).join('\n') + '\n',
    scripted_policy: options.scriptedPolicy,
    ...(options.prompt === undefined
      ? {}
      : {
          prompt: {
            system_prompt: options.prompt.systemPrompt,
            ...(options.prompt.observationBudget === undefined ? {} : { observation_budget: options.prompt.observationBudget }),
          },
        }),
    episode_deadline_ms: options.episodeDeadlineMs,
    cli: options.cli,
    listen: options.listen === '127.0.0.1' || options.listen === 'localhost' ? 'loopback' : 'node',
  });
  const specFile = join(dir, 'spec.json');
  // Created 0600: it holds the registry's token.
  await writeFileAtomic(specFile, JSON.stringify(spec), 0o600);
  let expected: number | undefined;
  const onLine = (line: string): void => {
    const match = nodesLine.exec(line);
    if (match !== null) expected = Number(match[1]);
    options.onLine(line);
  };
  let job: TrainerHandle;
  try {
    job = await launchRayJob({
      client: new RayJobsClient({ address: options.ray }),
      // Each start its own job: a resumed run's earlier hosts job has ended and cannot be reused.
      submissionId: raySubmissionId(options.runName, `hosts-${Date.now().toString(36)}`),
      entrypoint: shellCommand([options.python, '-m', 'graph_planner_verl.sandbox_hosts', specFile]),
      envVars: { PYTHONPATH: options.adapterDir },
      metadata: { gp_run: options.runName, gp_role: 'sandbox-hosts' },
      onLine,
      pollMs: 1000,
      // The hosts' job ends with the run; a cluster that went away should not hold the run's end for long.
      unreachableMs: 30_000,
    });
  } catch (error) {
    await pool.close();
    throw new Error(`the sandbox hosts' Ray job could not be submitted: ${errorMessage(error)}`);
  }
  const stop = async (): Promise<void> => {
    // The hosts end first, cleaning up after themselves; then the job, whose actors have nothing left to hold.
    await pool.shutdownHosts();
    await pool.close();
    await job.stop();
    await rm(specFile, { force: true });
  };
  options.log(`sandbox hosts: ${job.where}`);
  let ended: string | undefined;
  void job.ended.then((end) => (ended = end.reason));
  const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
  for (;;) {
    if (options.signal.aborted) {
      await stop();
      throw new Error('interrupted while the sandbox hosts started');
    }
    if (expected !== undefined && pool.summary().hosts >= expected) break;
    if (ended !== undefined) {
      await pool.close();
      await rm(specFile, { force: true });
      throw new Error(`the sandbox hosts' Ray job ended before its hosts registered (${ended}); its output is in the run's log`);
    }
    if (Date.now() >= deadline) {
      await stop();
      throw new Error(
        `${pool.summary().hosts} of ${expected ?? '?'} sandbox host(s) registered within ${Math.round((options.startTimeoutMs ?? 180_000) / 1000)} s; see the run's log for the hosts' output`,
      );
    }
    await pool.waitForHosts((expected ?? 1) > pool.summary().hosts ? pool.summary().hosts + 1 : 1, 500, options.signal);
  }
  const { hosts, slots } = pool.summary();
  options.log(`sandbox hosts: ${hosts} host(s) with ${slots} slot(s) registered`);
  return { pool, job, stop };
}
