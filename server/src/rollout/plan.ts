/**
 * Which episodes a rollout runs: each task `attempts` times. An episode's id is the task id, or
 * `<task_id>#<attempt>` when a task is attempted more than once; its trajectory file name is made
 * filename-safe by the run directory layout.
 */
import type { Observation } from '../protocol/observation.js';
import type { TrajectoryFork, TrajectoryStep } from '../protocol/runs.js';
import type { TaskEntry } from '../tasks/index.js';

/**
 * What a fork's episode replays before it goes on live (launch/forkLaunch.ts): its parent, the
 * parent's observation after reset and its steps before the fork's step, as recorded.
 */
export interface ForkPrefix {
  readonly parent: TrajectoryFork;
  /** The parent's task: a fork continues it and no other. */
  readonly taskId: string;
  readonly reset: Observation;
  readonly steps: readonly TrajectoryStep[];
}

export interface EpisodeSpec {
  readonly episodeId: string;
  readonly task: TaskEntry;
  /** 1-based. */
  readonly attempt: number;
  /** The dataset file's folder: a task's relative `local_repo` and mounts resolve against it. */
  readonly baseDir: string;
  /** `file:line` of the task's row, for messages. */
  readonly source: string;
  /** A fork's prefix: the episode replays it before its agent acts. */
  readonly fork?: ForkPrefix;
}

export interface PlannedTask {
  readonly task: TaskEntry;
  readonly baseDir: string;
  readonly source: string;
}

export function episodeId(taskId: string, attempt: number, attempts: number): string {
  return attempts === 1 ? taskId : `${taskId}#${attempt}`;
}

/** Tasks in order, each attempt of a task before the next task (so attempts of one task spread over the pool). */
export function planEpisodes(tasks: readonly PlannedTask[], attempts: number, fork?: ForkPrefix): EpisodeSpec[] {
  const out: EpisodeSpec[] = [];
  for (const t of tasks) {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      out.push({
        episodeId: episodeId(t.task.task_id, attempt, attempts),
        task: t.task,
        attempt,
        baseDir: t.baseDir,
        source: t.source,
        ...(fork === undefined ? {} : { fork }),
      });
    }
  }
  return out;
}
