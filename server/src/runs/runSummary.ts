/**
 * What the Runs view shows of a run folder and of its episodes, derived from the run's own files:
 * the listing (status.json), the launch record, and the events folded episode by episode. A
 * `running` status whose process is gone reads as interrupted, and whatever is wrong with a file is
 * said in `problem` rather than hiding the run.
 */
import { existsSync } from 'node:fs';
import type { RunLaunchRecord, RunEvent } from '../protocol/runs.js';
import type { EpisodeSummary, RunSummary } from '../protocol/runsView.js';
import type { RunListing } from './discover.js';
import { runLayout } from './layout.js';

export interface SummaryInputs {
  readonly listing: RunListing;
  readonly root: string;
  readonly launch: RunLaunchRecord | undefined;
  /** Problems found in the run's files besides status.json (bad events lines). */
  readonly problems: readonly string[];
  /** The Ray nodes its episodes ran on (`EpisodeFold.nodes`). */
  readonly nodes: RunSummary['nodes'];
}

export function summarizeRun({ listing, root, launch, problems, nodes }: SummaryInputs): RunSummary {
  const status = listing.status;
  const layout = runLayout(listing.dir);
  const state = status === undefined ? 'unknown' : listing.stale ? 'interrupted' : status.state;
  const statusProblem =
    listing.problem === undefined
      ? undefined
      : listing.problem === 'no status.json'
        ? 'no status.json yet (the run has not started, or gp config resolve wrote this folder)'
        : listing.problem;
  const allProblems = [
    ...(statusProblem === undefined ? [] : [statusProblem]),
    ...(listing.stale ? [`its process (pid ${status?.pid ?? '?'}) is gone without ending the run`] : []),
    ...problems,
  ];
  return {
    dir: listing.dir,
    name: listing.name,
    root,
    state,
    stale: listing.stale,
    kind: launch?.command ?? kindOf(status?.command),
    command: status?.command ?? null,
    agent: launch?.agent ?? null,
    episodes: status?.episodes ?? null,
    backend: status?.backend ?? null,
    model: status?.model ?? null,
    nodes: [...nodes],
    startedAt: status?.started_at ?? null,
    endedAt: status?.ended_at ?? null,
    exitReason: status?.exit_reason ?? null,
    problem: allProblems.length === 0 ? null : allProblems.join('; '),
    hasReport: listing.hasReport,
    hasLog: existsSync(layout.runLog),
    hasMetrics: existsSync(layout.metrics),
    relaunchable: launch !== undefined,
    fork: launch?.fork ?? null,
  };
}

/** `rollout` from `gp rollout tasks.jsonl …`; `verify` from `gp dataset verify …`, whose episodes are tasks verified. */
function kindOf(command: string | undefined): string | null {
  if (command !== undefined && /^gp\s+dataset\s+verify(\s|$)/.test(command)) return 'verify';
  const match = command === undefined ? null : /^gp\s+(\S+)/.exec(command);
  return match?.[1] ?? null;
}

/**
 * Episodes folded from events as they arrive: an `episode-start` makes an episode running, its
 * `episode-end` settles it. A resumed run starts an episode again, which replaces the old entry.
 */
export class EpisodeFold {
  private readonly episodes = new Map<string, EpisodeSummary>();

  constructor(private readonly dir: string) {}

  /** Applies events; returns the episodes they changed. */
  apply(events: readonly RunEvent[]): EpisodeSummary[] {
    const changed = new Map<string, EpisodeSummary>();
    const layout = runLayout(this.dir);
    for (const e of events) {
      let next: EpisodeSummary | undefined;
      if (e.kind === 'episode-start') {
        next = {
          episodeId: e.episode_id,
          taskId: e.task_id,
          state: 'running',
          steps: null,
          totalReward: null,
          terminationReason: null,
          sandboxHost: e.sandbox_host ?? null,
          trajectory: layout.trajectory(e.episode_id),
        };
      } else if (e.kind === 'episode-end') {
        const state =
          e.termination_reason === 'error' ? 'error' : e.termination_reason === 'interrupted' ? 'interrupted' : e.resolved ? 'resolved' : 'unresolved';
        // The end event does not repeat the host; the start's stays with the episode, and so does
        // its trajectory's path, which the layout may have had to ask the disk for (an older run's name).
        const started = this.episodes.get(e.episode_id);
        const sandboxHost = started?.sandboxHost ?? null;
        next = {
          episodeId: e.episode_id,
          taskId: e.task_id,
          state,
          steps: e.steps,
          totalReward: e.total_reward,
          terminationReason: e.termination_reason,
          sandboxHost,
          trajectory: started?.trajectory ?? layout.trajectory(e.episode_id),
        };
      } else if (e.kind === 'run-end') {
        // Episodes still marked running when the run ended were cut off with it.
        for (const ep of this.episodes.values()) if (ep.state === 'running') this.set({ ...ep, state: 'interrupted' }, changed);
      }
      if (next !== undefined) this.set(next, changed);
    }
    return [...changed.values()];
  }

  /** Marks running episodes interrupted (the run's process is gone); returns those it changed. */
  interruptRunning(): EpisodeSummary[] {
    const changed = new Map<string, EpisodeSummary>();
    for (const ep of this.episodes.values()) if (ep.state === 'running') this.set({ ...ep, state: 'interrupted' }, changed);
    return [...changed.values()];
  }

  all(): EpisodeSummary[] {
    return [...this.episodes.values()];
  }

  /** The Ray nodes of the episodes' sandbox hosts with how many episodes each ran, in the order first seen. */
  nodes(): RunSummary['nodes'] {
    const counts = new Map<string, number>();
    for (const ep of this.episodes.values()) if (ep.sandboxHost !== null) counts.set(ep.sandboxHost.node, (counts.get(ep.sandboxHost.node) ?? 0) + 1);
    return [...counts].map(([node, episodes]) => ({ node, episodes }));
  }

  clear(): void {
    this.episodes.clear();
  }

  private set(ep: EpisodeSummary, changed: Map<string, EpisodeSummary>): void {
    this.episodes.set(ep.episodeId, ep);
    changed.set(ep.episodeId, ep);
  }
}
