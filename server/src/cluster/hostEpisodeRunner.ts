/**
 * `gp eval --ray`'s episodes, each run whole on a sandbox host (docs/sandbox-hosts.md): the
 * rollout's pool, report and resume stay in the launching process, and each episode goes to the
 * host routing chooses, which runs it with the run's own agent and answers with its end and its
 * files, written here into the run folder. An evaluation retries an episode whose host was lost
 * on another host (a warning says so); one that loses its hosts every time ends as an
 * infrastructure failure (`host-lost`), which a resume runs again.
 */
import type { TrajectoryEnd } from '../protocol/runs.js';
import { runEpisodeReplySchema } from '../protocol/sandboxHosts.js';
import type { EpisodeContext, EpisodeResult, EpisodeSpec } from '../rollout/index.js';
import { runLayout, TrajectoryWriter, writeEpisodeFiles } from '../runs/index.js';
import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import { HostLostError } from './hostClient.js';
import type { HostPool } from './hostPool.js';

export interface HostEpisodeRunnerOptions {
  readonly runDir: string;
  /** Further hosts an episode may try after its host was lost. */
  readonly retries: number;
}

/** How long an interrupted episode's host gets to end it and answer before its records are given up. */
const stopGraceMs = 70_000;

export function hostEpisodeRunner(
  pool: HostPool,
  options: HostEpisodeRunnerOptions,
): (spec: EpisodeSpec, episodeContext: EpisodeContext) => Promise<EpisodeResult> {
  return async (spec, episodeContext) => {
    // Each running episode listens for the run's interrupt: more than Node's default ten at once is expected.
    setMaxListeners(0, episodeContext.signal);
    const startedAt = Date.now();
    const image = spec.task.sandbox.docker_image;
    let lost = '';
    for (let attempt = 0; attempt <= options.retries; attempt++) {
      let lease;
      try {
        lease = await pool.acquire(image === undefined ? {} : { image }, episodeContext.signal);
      } catch (error) {
        return endedHere(
          options.runDir,
          spec,
          startedAt,
          episodeContext.signal.aborted
            ? { reason: 'interrupted', cause: 'interrupted before a sandbox slot was free' }
            : { reason: 'error', cause: String(error), lost: true },
        );
      }
      const held = lease;
      const stopOnAbort = (): void => {
        void held.host.client
          .call({ method: 'POST', path: `/runs/${encodeURIComponent(spec.episodeId)}/stop`, schema: z.object({ ok: z.literal(true) }), timeoutMs: 10_000 })
          .catch(() => undefined);
      };
      episodeContext.signal.addEventListener('abort', stopOnAbort, { once: true });
      const giveUp = new AbortController();
      const onLost = (): void => giveUp.abort(held.host.lost.reason);
      held.host.lost.addEventListener('abort', onLost, { once: true });
      let graceTimer: NodeJS.Timeout | undefined;
      if (episodeContext.signal.aborted) stopOnAbort();
      episodeContext.signal.addEventListener(
        'abort',
        () => (graceTimer = setTimeout(() => giveUp.abort(new Error('the host did not answer after the episode was stopped')), stopGraceMs)),
        { once: true },
      );
      try {
        const reply = await held.host.client.call({
          method: 'POST',
          path: '/runs',
          body: { episode_id: spec.episodeId, task_id: spec.task.task_id, attempt: spec.attempt },
          schema: runEpisodeReplySchema,
          signal: giveUp.signal,
        });
        await writeEpisodeFiles(options.runDir, reply.files);
        if (reply.backend !== undefined) episodeContext.sandboxOpened?.(reply.backend);
        const end: TrajectoryEnd = { type: 'end', ...reply.end };
        return { end, trajectory: reply.trajectory, instanceReport: reply.instance_report };
      } catch (error) {
        if (!(error instanceof HostLostError)) throw error;
        lost = error.message;
        if (!episodeContext.signal.aborted) pool.reportLost(held.host, error);
        if (episodeContext.signal.aborted) break;
        const again = attempt < options.retries;
        await episodeContext.warn?.(
          `${held.host.name} was lost while running it (${error.message.replace(`${held.host.name}: `, '')}); ${again ? 'it runs again on another host' : 'it ends as an infrastructure failure (host-lost) and a resume runs it again'}`,
          spec.episodeId,
        );
      } finally {
        clearTimeout(graceTimer);
        episodeContext.signal.removeEventListener('abort', stopOnAbort);
        held.host.lost.removeEventListener('abort', onLost);
        held.release();
      }
    }
    return endedHere(
      options.runDir,
      spec,
      startedAt,
      episodeContext.signal.aborted
        ? { reason: 'interrupted', cause: `interrupted; its host did not answer (${lost})` }
        : { reason: 'error', cause: lost, lost: true },
    );
  };
}

/** An episode that ended without its host's records: an end line written here says how. */
async function endedHere(
  runDir: string,
  spec: EpisodeSpec,
  startedAt: number,
  how: { reason: 'interrupted' | 'error'; cause: string; lost?: boolean },
): Promise<EpisodeResult> {
  const end: TrajectoryEnd = {
    type: 'end',
    episode_id: spec.episodeId,
    task_id: spec.task.task_id,
    resolved: false,
    steps: 0,
    total_reward: 0,
    termination_reason: how.reason,
    duration_ms: Date.now() - startedAt,
    patch: '',
    error: how.cause,
    ...(how.lost === true ? { infrastructure: { code: 'host-lost' as const, cause: how.cause } } : {}),
  };
  const layout = runLayout(runDir);
  const { type: _type, ...line } = end;
  await TrajectoryWriter.endOnly(layout.trajectory(spec.episodeId), line);
  return { end, trajectory: layout.trajectoryRelative(spec.episodeId), instanceReport: undefined };
}
