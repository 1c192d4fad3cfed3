/**
 * The words the Runs view puts beside a run and an episode. No `vscode` import, so the unit tests
 * check them directly.
 */
import { episodeName, groupByTask } from '../../../server/src/protocol/episodeName.js';
import { shortNodeName } from '../../../server/src/protocol/rayNode.js';
import { visibleLine } from '../../../server/src/protocol/terminalText.js';
import type { EpisodeSummary, RunSummary } from '../../../server/src/protocol/runsView.js';
import type { TrajectoryFork } from '../../../server/src/protocol/runs.js';

/**
 * `2/3 resolved · finished · 1m 04s · rollout · rule`: the result first, then the state (its icon
 * says it too), so a side bar at its default width cuts only what the tooltip says again. A run
 * still going says how many of its episodes ended and how many of those were resolved
 * (`4/10 · 3 resolved · running`); a verification counts certified tasks (`6/7 certified · 1 not
 * certified · finished`). Then `on 2 nodes` when its episodes ran on sandbox hosts of several Ray
 * nodes, or what is wrong with the folder.
 */
export function describeRun(run: RunSummary, now: number): string {
  if (run.state === 'unknown' && run.problem !== null) return run.problem;
  const parts: string[] = [];
  // A run that ended with no episode planned stopped before it began (issue 37): its reason says why, not `0/0`.
  const neverStarted = run.state !== 'running' && (run.episodes === null || run.episodes.total === 0);
  if (run.episodes !== null && !neverStarted) {
    const { total, finished, resolved, errored } = run.episodes;
    // A verification's episodes are its tasks: certified (flaky ones included) or not.
    const verify = run.kind === 'verify';
    const word = verify ? 'certified' : 'resolved';
    if (finished === total) parts.push(`${resolved}/${total} ${word}`);
    else parts.push(`${finished}/${total}`, `${resolved} ${word}`);
    if (errored > 0) parts.push(`${errored} ${verify ? 'not certified' : 'errored'}`);
  }
  parts.push(run.state);
  const duration = durationOf(run, now);
  if (duration !== null) parts.push(duration);
  // One node is named on each episode and in the tooltip; the row says only that the run was spread.
  if (run.nodes.length > 1) parts.push(`on ${run.nodes.length} nodes`);
  // A fork says what it continues where the kind would be: at the top level its row must say whose fork it is.
  if (run.fork !== null) parts.push(`fork of ${run.fork.episode_id} at step ${run.fork.step}`);
  else if (run.kind !== null) parts.push(run.kind);
  if (run.agent !== null) parts.push(run.agent);
  if (run.problem !== null) parts.push(`⚠ ${run.problem}`);
  if (neverStarted && run.exitReason !== null) parts.push(run.exitReason.replace(/\s+/g, ' '));
  return parts.join(' · ');
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A run's label, short enough that its state and result fit beside it at the side bar's default
 * width. A default run name (`<experiment>-<command>-<UTC stamp>`, launch/runFolder.ts) shows as the
 * experiment and the stamp's local time, `attempts 11:23:43` for `attempts-rollout-20261126-112343`
 * (the command is in the row's line), with the day when it is not today's (`attempts 25 Nov 11:23:43`)
 * and the folder's number when two launches shared a second (`attempts 11:23:43 (2)`); any other name
 * shows whole. The tooltip gives the whole folder name.
 */
export function runLabel(name: string, now: number): string {
  // A fork's folder is its parent's name and its own stamp (launch/forkLaunch.ts): both times, so it reads as the parent's fork.
  const fork = /^(.+)-fork-(\d{8}-\d{6}(?:-\d+)?)$/.exec(name);
  if (fork !== null) {
    const [, parent = name, stamp = ''] = fork;
    const own = runLabel(`fork-${stamp}`, now);
    return own === `fork-${stamp}` ? name : `${runLabel(parent, now)} › ${own}`;
  }
  const m = /^(.+?)(?:-(?:rollout|eval|train|verify))?-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-(\d+))?$/.exec(name);
  if (m === null) return name;
  const [, base = name, y, mo, d, h, mi, se, copy] = m;
  const at = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se)));
  // A stamp Date.UTC had to roll over (month 13, 25 o'clock) is not a time: the name shows whole.
  if (at.getUTCMonth() !== Number(mo) - 1 || at.getUTCDate() !== Number(d) || at.getUTCHours() !== Number(h) || at.getUTCMinutes() !== Number(mi)) return name;
  const today = new Date(now);
  const sameDay = at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate();
  // Seconds too: two launches in one minute (a re-run, a smoke beside a training run) are two rows a person tells apart.
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  return `${base} ${sameDay ? time : `${at.getDate()} ${months[at.getMonth()] ?? ''} ${time}`}${copy === undefined ? '' : ` (${copy})`}`;
}

/**
 * A run's kind as the Runs view marks it (issue 37): the codicon beside its state, and the noun its
 * notices and tooltip use. `kind` is the command that made the run (`rollout`, `eval`, `train`,
 * `verify`, runs/runSummary.ts); any other is shown as a run of that name.
 */
export interface RunKind {
  readonly icon: string;
  readonly noun: string;
}

const runKinds: Readonly<Record<string, RunKind>> = {
  rollout: { icon: 'play', noun: 'Rollout' },
  eval: { icon: 'checklist', noun: 'Evaluation' },
  train: { icon: 'rocket', noun: 'Training' },
  verify: { icon: 'verified', noun: 'Verification' },
};

export function runKindOf(kind: string | null): RunKind {
  return (kind === null ? undefined : runKinds[kind]) ?? { icon: 'circle-outline', noun: kind === null ? 'Run' : `Run (${kind})` };
}

const stateColors: Record<RunSummary['state'], string | undefined> = {
  running: 'charts.blue',
  finished: 'testing.iconPassed',
  failed: 'testing.iconFailed',
  interrupted: 'charts.yellow',
  unknown: undefined,
};

/**
 * A run row's icon: a running run spins; one that ended shows its kind's icon (a fork's own) in its state's colour
 * (its state is also the first word of its line, so the colour is never the only sign); a folder
 * that cannot be read shows a warning.
 */
export function runIcon(run: Pick<RunSummary, 'state' | 'kind' | 'problem'> & { readonly fork?: RunSummary['fork'] }): {
  readonly id: string;
  readonly color: string | undefined;
} {
  if (run.state === 'unknown' && run.problem !== null) return { id: 'warning', color: 'problemsWarningIcon.foreground' };
  if (run.state === 'running') return { id: 'sync~spin', color: stateColors.running };
  // A fork is a rollout, but one that continues an episode: its icon says so, under its parent and among the runs.
  return { id: run.fork === undefined || run.fork === null ? runKindOf(run.kind).icon : 'repo-forked', color: stateColors[run.state] };
}

/**
 * The one name a run has wherever the editor shows it (issue 37): its Runs view label, as
 * `runLabel` makes it, after its kind's noun (`Rollout sample 17:47:35`). The end notice, the
 * launch progress, the status bar and the report and metrics pages all say it.
 */
export function runTitle(run: { readonly name: string; readonly kind: string | null }, now: number): string {
  return `${runKindOf(run.kind).noun} ${runLabel(run.name, now)}`;
}

/** A time from a run's files (ISO, UTC) as the local time the labels use: `27 Nov 2026 17:47:35`. */
export function localTime(iso: string | null): string | null {
  if (iso === null) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${at.getDate()} ${months[at.getMonth()] ?? ''} ${at.getFullYear()} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
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
  if (ep.terminationReason !== null && ep.terminationReason !== 'submitted' && ep.terminationReason !== ep.state)
    parts.push(ep.terminationReason.replace(/_/g, ' '));
  // An attempt's name (`task#2`) and a training episode's (`task-<group>-<key>`) say their task; any other is followed by it.
  const name = episodeName(ep);
  if (name !== ep.taskId && !name.startsWith(`${ep.taskId}#`) && !name.startsWith(`${ep.taskId}-`)) parts.push(ep.taskId);
  if (ep.sandboxHost !== null) parts.push(`node ${shortNodeName(ep.sandboxHost.node)}`);
  return parts.join(' · ');
}

/** Each episode state's theme icon and colour: the Runs view's rows and the Compare picker's items show the same. */
export const episodeStateIcons: Record<EpisodeSummary['state'], { readonly id: string; readonly color: string | undefined }> = {
  running: { id: 'sync~spin', color: 'charts.blue' },
  resolved: { id: 'pass-filled', color: 'testing.iconPassed' },
  unresolved: { id: 'circle-slash', color: 'testing.iconFailed' },
  error: { id: 'error', color: 'testing.iconErrored' },
  interrupted: { id: 'debug-pause', color: 'charts.yellow' },
};

/** What a task's row in a run says of its attempts. */
export interface TaskAttempts {
  readonly taskId: string;
  readonly episodes: readonly EpisodeSummary[];
}

/**
 * `2/3 resolved · mean reward 0.67`, with `· 1 running` while some still run: a task's row in the
 * Runs view, the result first, as a run's row has it.
 */
export function describeTask(task: TaskAttempts): string {
  const ended = task.episodes.filter((e) => e.state !== 'running');
  const resolved = task.episodes.filter((e) => e.state === 'resolved').length;
  const parts = [`${resolved}/${task.episodes.length} resolved`];
  const rewards = ended.map((e) => e.totalReward).filter((r): r is number => r !== null);
  if (rewards.length > 0) parts.push(`mean reward ${(rewards.reduce((a, b) => a + b, 0) / rewards.length).toFixed(2)}`);
  const running = task.episodes.length - ended.length;
  if (running > 0) parts.push(`${running} running`);
  const errored = ended.filter((e) => e.state === 'error').length;
  if (errored > 0) parts.push(`${errored} errored`);
  return parts.join(' · ');
}

/**
 * A task's icon from its attempts: running while one runs, passed when every attempt was resolved,
 * failed when none was, and a half-filled circle when some were.
 */
export function taskIcon(task: TaskAttempts): { readonly id: string; readonly color: string | undefined } {
  const states = task.episodes.map((e) => e.state);
  if (states.includes('running')) return episodeStateIcons.running;
  const resolved = states.filter((s) => s === 'resolved').length;
  if (resolved === states.length) return episodeStateIcons.resolved;
  if (resolved > 0) return { id: 'pass', color: 'charts.yellow' };
  if (states.every((s) => s === 'interrupted')) return episodeStateIcons.interrupted;
  return states.includes('error') && !states.includes('unresolved') ? episodeStateIcons.error : episodeStateIcons.unresolved;
}

/**
 * A run's episodes as the Runs view lists them: by task, each task's attempts in order
 * (`protocol/episodeName.ts`). Grouped under a row per task once some task has more than one
 * episode; otherwise the episodes themselves, since a task row would only repeat its one episode.
 */
export type RunChildren =
  { readonly grouped: false; readonly episodes: readonly EpisodeSummary[] } | { readonly grouped: true; readonly tasks: readonly TaskAttempts[] };

export function runChildren(episodes: readonly EpisodeSummary[]): RunChildren {
  const tasks = groupByTask(episodes);
  if (tasks.every((t) => t.episodes.length === 1)) return { grouped: false, episodes: tasks.flatMap((t) => t.episodes) };
  return { grouped: true, tasks };
}

/**
 * A fork's row under the episode it continues: `fork from step 3`, then its agent and its line as a
 * run's (`rule · 1/2 resolved · finished · 12s`); the parent is the row above, so it is not named again.
 */
export function forkRowLabel(fork: TrajectoryFork): string {
  return `fork from step ${fork.step}`;
}

export function describeForkRow(run: RunSummary, now: number): string {
  const line = describeRun({ ...run, kind: null, agent: null, fork: null }, now);
  return run.agent === null ? line : `${run.agent} · ${line}`;
}

/** The forks of one episode among the runs listed, oldest first, so a new one is added at the end. */
export function forksOf(runs: Iterable<RunSummary>, dir: string, episodeId: string): RunSummary[] {
  return [...runs]
    .filter((r) => r.fork !== null && r.fork.run === dir && r.fork.episode_id === episodeId)
    .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.name.localeCompare(b.name));
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

/** What a run with no episode says in their place: why it has none, when it has ended without one. */
export function noEpisodeText(run: RunSummary | undefined): string {
  if (run?.kind === 'verify') return 'A verification runs no episodes: each task’s verdict shows in the Tasks view.';
  if (run === undefined || run.state === 'running' || run.state === 'unknown') return 'No episode has started yet.';
  const reason = run.exitReason === null ? '' : `: ${visibleLine(run.exitReason.replace(/\s+/g, ' '))}`;
  return `It ${run.state === 'interrupted' ? 'was interrupted' : 'ended'} before any episode started${reason}`;
}
