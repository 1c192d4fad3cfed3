/**
 * The words the Runs view puts beside a run and an episode. No `vscode` import, so the unit tests
 * check them directly.
 */
import { shortNodeName } from '../../../server/src/protocol/rayNode.js';
import type { EpisodeSummary, RunSummary } from '../../../server/src/protocol/runsView.js';

/**
 * `finished · rollout · rule · 3/3 · 2 resolved · 1m 04s` (`7/7 · 7 certified` for a verification),
 * with `on 2 nodes` when its episodes ran on sandbox hosts of several Ray nodes, or what is wrong
 * with the folder.
 */
export function describeRun(run: RunSummary, now: number): string {
  if (run.state === 'unknown' && run.problem !== null) return run.problem;
  const parts: string[] = [run.state];
  if (run.kind !== null) parts.push(run.kind);
  if (run.agent !== null) parts.push(run.agent);
  if (run.episodes !== null) {
    parts.push(`${run.episodes.finished}/${run.episodes.total}`);
    // A verification's episodes are its tasks: certified (flaky ones included) or not.
    const verify = run.kind === 'verify';
    parts.push(`${run.episodes.resolved} ${verify ? 'certified' : 'resolved'}`);
    if (run.episodes.errored > 0) parts.push(`${run.episodes.errored} ${verify ? 'not certified' : 'errored'}`);
  }
  // One node is named on each episode and in the tooltip; the row says only that the run was spread.
  if (run.nodes.length > 1) parts.push(`on ${run.nodes.length} nodes`);
  const duration = durationOf(run, now);
  if (duration !== null) parts.push(duration);
  if (run.problem !== null) parts.push(`⚠ ${run.problem}`);
  return parts.join(' · ');
}

/** How long the run ran (or has been running), as `45s`, `3m 07s` or `2h 05m`; null without a start. */
export function durationOf(run: Pick<RunSummary, 'startedAt' | 'endedAt' | 'state'>, now: number): string | null {
  if (run.startedAt === null) return null;
  const start = Date.parse(run.startedAt);
  const end = run.endedAt !== null ? Date.parse(run.endedAt) : run.state === 'running' ? now : null;
  if (Number.isNaN(start) || end === null || Number.isNaN(end)) return null;
  const s = Math.max(0, Math.round((end - start) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `resolved · reward 1.00 · 4 steps`, then the termination reason, the task and the Ray node when they say something. */
export function describeEpisode(ep: EpisodeSummary): string {
  const parts: string[] = [ep.state];
  if (ep.totalReward !== null) parts.push(`reward ${ep.totalReward.toFixed(2)}`);
  if (ep.steps !== null) parts.push(`${ep.steps} ${ep.steps === 1 ? 'step' : 'steps'}`);
  if (ep.terminationReason !== null && ep.terminationReason !== 'submitted' && ep.terminationReason !== ep.state) parts.push(ep.terminationReason.replace(/_/g, ' '));
  if (ep.taskId !== ep.episodeId && !ep.episodeId.startsWith(`${ep.taskId}#`)) parts.push(ep.taskId);
  if (ep.sandboxHost !== null) parts.push(`node ${shortNodeName(ep.sandboxHost.node)}`);
  return parts.join(' · ');
}

/** `worker-1 (3 episodes), worker-2 (1 episode)`: the run tooltip's Ray nodes; null when no episode ran on a sandbox host. */
export function describeNodes(run: Pick<RunSummary, 'nodes'>): string | null {
  if (run.nodes.length === 0) return null;
  return run.nodes.map((n) => `${n.node} (${n.episodes} ${n.episodes === 1 ? 'episode' : 'episodes'})`).join(', ');
}

/** `Ray node worker-1 (sandbox host host-a)`: the episode tooltip's line; null when it ran in the launching process. */
export function describeEpisodeHost(ep: Pick<EpisodeSummary, 'sandboxHost'>): string | null {
  return ep.sandboxHost === null ? null : `Ray node ${ep.sandboxHost.node} (sandbox host ${ep.sandboxHost.id})`;
}
