/**
 * A run's episodes by task, GRPO group and training step, for the group view: folded from the
 * run's `events.jsonl` as it grows (only the bytes appended since the last read are read), so a
 * training run of thousands of episodes is not read again per request. A training episode's
 * events carry its group (Verl's `uid`, from its start) and its step (from its end); a running
 * member takes the step of its group's ended members. Outside training every episode of a task is
 * one set, in the order the episodes started.
 */
import type { GroupChoice, GroupSelection } from '../protocol/episodeGroup.js';
import { episodeAttempt } from '../protocol/episodeName.js';
import { noOutcomeReason } from '../protocol/noOutcome.js';
import type { TrainingGroup } from '../protocol/runs.js';
import { EventTail, runLayout } from '../runs/index.js';

export interface IndexedEpisode {
  readonly episodeId: string;
  readonly taskId: string;
  /** Its place in the order episodes started. */
  readonly order: number;
  readonly group: TrainingGroup | undefined;
  /** The training step its end recorded. */
  readonly step: number | undefined;
  readonly state: 'running' | 'resolved' | 'unresolved' | 'error' | 'interrupted';
  /** Its return from its end event; null while it runs. */
  readonly totalReward: number | null;
  /** Why it reached no outcome (protocol/noOutcome.ts); null when it reached one or still runs. */
  readonly noOutcome: string | null;
}

export class RunEpisodeIndex {
  private readonly tail: EventTail;
  private readonly episodes = new Map<string, IndexedEpisode>();
  private started = 0;

  constructor(readonly dir: string) {
    this.tail = new EventTail(runLayout(dir).events);
  }

  /** Folds the events appended since the last refresh; returns the lines that could not be read. */
  async refresh(): Promise<string[]> {
    const read = await this.tail.read();
    if (read.restarted || read.missing) {
      this.episodes.clear();
      this.started = 0;
    }
    for (const e of read.events) {
      if (e.kind === 'episode-start') {
        this.episodes.set(e.episode_id, {
          episodeId: e.episode_id,
          taskId: e.task_id,
          order: this.started++,
          group: e.training,
          step: undefined,
          state: 'running',
          totalReward: null,
          noOutcome: null,
        });
      } else if (e.kind === 'episode-end') {
        const before = this.episodes.get(e.episode_id);
        const state =
          e.termination_reason === 'error' ? 'error' : e.termination_reason === 'interrupted' ? 'interrupted' : e.resolved ? 'resolved' : 'unresolved';
        const group = e.training === undefined ? before?.group : { group_id: e.training.group_id, group_member: e.training.group_member };
        this.episodes.set(e.episode_id, {
          episodeId: e.episode_id,
          taskId: e.task_id,
          order: before?.order ?? this.started++,
          group,
          step: e.training?.step,
          state,
          totalReward: e.total_reward,
          noOutcome: noOutcomeReason(e),
        });
      } else if (e.kind === 'run-end') {
        // A member still running when the run ended never reached the trainer with an outcome.
        for (const [id, ep] of this.episodes) if (ep.state === 'running') this.episodes.set(id, { ...ep, state: 'interrupted', noOutcome: 'interrupted' });
      }
    }
    return read.problems;
  }

  all(): IndexedEpisode[] {
    return [...this.episodes.values()];
  }
}

/** The set of episodes a selection names, and the sets a person can switch to from it. */
export interface ResolvedGroup {
  readonly taskId: string;
  readonly groupId: string | null;
  readonly step: number | null;
  /** In member order (training) or start order. */
  readonly members: IndexedEpisode[];
  /** The training steps that have groups, ascending. */
  readonly steps: number[];
  readonly choices: GroupChoice[];
  /** The members are one GRPO group, whose advantages Verl computed together. */
  readonly isTrainingGroup: boolean;
}

/** Each GRPO group's step: its ended members' (they agree), so its running members have one too. */
function groupSteps(episodes: readonly IndexedEpisode[]): Map<string, number> {
  const steps = new Map<string, number>();
  for (const ep of episodes) if (ep.group !== undefined && ep.step !== undefined && !steps.has(ep.group.group_id)) steps.set(ep.group.group_id, ep.step);
  return steps;
}

function meanReward(members: readonly IndexedEpisode[]): number | null {
  const rewards = members.map((m) => m.totalReward).filter((r): r is number => r !== null);
  return rewards.length === 0 ? null : rewards.reduce((a, b) => a + b, 0) / rewards.length;
}

const byMember = (a: IndexedEpisode, b: IndexedEpisode): number => (a.group?.group_member ?? 0) - (b.group?.group_member ?? 0) || a.order - b.order;
const byOrder = (a: IndexedEpisode, b: IndexedEpisode): number => a.order - b.order;

/**
 * A task's rollouts as columns: attempts by number (a resumed run starts them out of order), as
 * the Runs view lists them; episodes of other shapes after, in the order they started.
 */
const byAttempt = (a: IndexedEpisode, b: IndexedEpisode): number => {
  const x = episodeAttempt(a);
  const y = episodeAttempt(b);
  if (x !== null && y !== null && x !== y) return x - y;
  if ((x === null) !== (y === null)) return x === null ? 1 : -1;
  return byOrder(a, b);
};

/** Resolves a selection against a run's episodes; a string says why nothing matches. */
export function resolveGroup(episodes: readonly IndexedEpisode[], selection: GroupSelection): ResolvedGroup | string {
  const stepOfGroup = groupSteps(episodes);
  const steps = [...new Set(stepOfGroup.values())].sort((a, b) => a - b);
  const groups = new Map<string, IndexedEpisode[]>();
  for (const ep of episodes) if (ep.group !== undefined) groups.set(ep.group.group_id, [...(groups.get(ep.group.group_id) ?? []), ep]);
  const taskSet = (taskId: string): ResolvedGroup | string => {
    const members = episodes.filter((e) => e.taskId === taskId).sort(byAttempt);
    if (members.length === 0) return `The run has no episode of the task ${taskId}.`;
    return { taskId, groupId: null, step: null, members, steps, choices: taskChoices(episodes), isTrainingGroup: false };
  };
  const stepGroup = (step: number, groupId: string): ResolvedGroup => {
    const members = [...(groups.get(groupId) ?? [])].sort(byMember);
    const ofStep = [...groups].filter(([id]) => stepOfGroup.get(id) === step);
    const choices = ofStep
      .map(([id, m]) => ({ groupId: id, taskId: m[0]?.taskId ?? '?', size: m.length, meanReward: meanReward(m) }))
      .sort((a, b) => a.taskId.localeCompare(b.taskId) || (a.groupId < b.groupId ? -1 : 1));
    return { taskId: members[0]?.taskId ?? '?', groupId, step, members, steps, choices, isTrainingGroup: true };
  };
  switch (selection.kind) {
    case 'task':
      return taskSet(selection.taskId);
    case 'episode': {
      const ep = episodes.find((e) => e.episodeId === selection.episodeId);
      if (ep === undefined) return `The run's events name no episode ${selection.episodeId}.`;
      if (ep.group === undefined) return taskSet(ep.taskId);
      const step = stepOfGroup.get(ep.group.group_id);
      if (step === undefined) {
        const members = [...(groups.get(ep.group.group_id) ?? [])].sort(byMember);
        return { taskId: ep.taskId, groupId: ep.group.group_id, step: null, members, steps, choices: [], isTrainingGroup: true };
      }
      return stepGroup(step, ep.group.group_id);
    }
    case 'step': {
      if (steps.length === 0)
        return groups.size === 0
          ? 'The run has no training episodes with a GRPO group (only `gp train` records them).'
          : 'No GRPO group of the run has a known training step yet.';
      const step = selection.step ?? (steps.at(-1) as number);
      const ofStep = [...groups].filter(([id]) => stepOfGroup.get(id) === step);
      if (ofStep.length === 0) return `No GRPO group ended in training step ${step}; the run's steps with groups are ${steps.join(', ')}.`;
      const named = selection.groupId === null ? undefined : ofStep.find(([id]) => id === selection.groupId);
      const ofTask =
        selection.taskId === null ? undefined : ofStep.filter(([, m]) => m[0]?.taskId === selection.taskId).sort(([a], [b]) => (a < b ? -1 : 1))[0];
      const first = [...ofStep].sort(([a, ma], [b, mb]) => (ma[0]?.taskId ?? '').localeCompare(mb[0]?.taskId ?? '') || (a < b ? -1 : 1))[0];
      const chosen = named ?? ofTask ?? first;
      if (chosen === undefined) return `No GRPO group ended in training step ${step}.`;
      return stepGroup(step, chosen[0]);
    }
  }
}

/** Outside training, the choices are the run's tasks, each with its episodes. */
function taskChoices(episodes: readonly IndexedEpisode[]): GroupChoice[] {
  const tasks = new Map<string, IndexedEpisode[]>();
  for (const ep of episodes) tasks.set(ep.taskId, [...(tasks.get(ep.taskId) ?? []), ep]);
  return [...tasks]
    .map(([taskId, m]) => ({ groupId: null, taskId, size: m.length, meanReward: meanReward(m) }))
    .sort((a, b) => a.taskId.localeCompare(b.taskId));
}
