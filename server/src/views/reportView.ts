/**
 * A run's `report.json` (written by `rollout/report.ts`) shaped for the report page: the summary
 * head, one row per task (its attempts, outcome, means and first failure), the unresolved episodes'
 * reasons grouped, and the infrastructure failures apart, never as a task's outcome
 * (protocol/runReportView.ts defines each figure). Trajectory paths in the report are relative to
 * the run folder; one that leads out of it is not offered as a link.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ReportEpisode, ReportTask, RunReportResult, RunReportView } from '../protocol/runReportView.js';
import { runReportSchema, type RunReport, type TaskOutcome } from '../protocol/runs.js';
import { errorMessage } from '../util/errors.js';
import { runLayout, readLaunchRecord } from '../runs/index.js';
import { passAtKTable } from './passAtK.js';

/** The group an unresolved episode's reason falls in, by how the episode ended. */
const groupNames: Record<TaskOutcome['termination_reason'], string> = {
  submitted: 'Tests failed',
  max_steps: 'Hit the step limit',
  repo_op_limit: 'Hit the repository operation limit',
  step_timeout: 'A step timed out',
  episode_timeout: 'The episode timed out',
  interrupted: 'Interrupted',
  error: 'Error',
};

/** A path the report names, inside the run folder; undefined when it leads out of it. */
function inside(dir: string, path: string): string | undefined {
  const full = resolve(dir, path);
  const rel = relative(resolve(dir), full);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? undefined : full;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

export function reportView(dir: string, report: RunReport, command: string | null): RunReportView {
  const layout = runLayout(dir);
  const infrastructure = (report.infrastructure_failures ?? []).map((f) => ({
    taskId: f.task_id,
    episodeId: f.episode_id,
    code: f.code,
    cause: f.cause,
    trajectory: layout.trajectory(f.episode_id),
  }));
  const order: string[] = [];
  const byTask = new Map<string, { graded: TaskOutcome[]; failed: typeof infrastructure }>();
  const entry = (taskId: string) => {
    let found = byTask.get(taskId);
    if (found === undefined) {
      byTask.set(taskId, (found = { graded: [], failed: [] }));
      order.push(taskId);
    }
    return found;
  };
  for (const t of report.tasks) entry(t.task_id).graded.push(t);
  for (const f of infrastructure) entry(f.taskId).failed.push(f);
  const tasks = order.map((taskId): ReportTask => {
    const { graded, failed } = byTask.get(taskId) ?? { graded: [], failed: [] };
    const resolved = graded.filter((t) => t.resolved).length;
    const episodes: ReportEpisode[] = [
      ...graded.flatMap((t): ReportEpisode[] => {
        const trajectory = inside(dir, t.trajectory);
        return trajectory === undefined
          ? []
          : [{ episodeId: t.episode_id, trajectory, outcome: t.resolved ? 'resolved' : 'unresolved', suspectedHacks: t.suspected_hacks ?? 0 }];
      }),
      ...failed.map((f): ReportEpisode => ({ episodeId: f.episodeId, trajectory: f.trajectory, outcome: 'no-outcome', suspectedHacks: 0 })),
    ];
    const firstFailure = graded.find((t) => !t.resolved);
    return {
      taskId,
      attempts: graded.length + failed.length,
      graded: graded.length,
      resolved,
      outcome: graded.length === 0 ? 'no-outcome' : resolved === graded.length ? 'resolved' : resolved === 0 ? 'unresolved' : 'mixed',
      reward: mean(graded.map((t) => t.total_reward)),
      steps: mean(graded.map((t) => t.steps)),
      durationMs: graded.length === 0 ? null : graded.reduce((n, t) => n + t.duration_ms, 0),
      failureReason:
        firstFailure !== undefined
          ? (firstFailure.failure_reason ?? firstFailure.termination_reason)
          : graded.length === 0 && failed[0] !== undefined
            ? `no outcome: ${failed[0].code}: ${failed[0].cause}`
            : null,
      episodes,
    };
  });
  return {
    run: report.run,
    dir,
    command,
    agent: report.agent,
    dataset: report.dataset,
    createdAt: report.created_at,
    state: report.state ?? null,
    summary: {
      graded: report.total,
      resolved: report.resolved,
      resolvedRate: report.total === 0 ? null : report.resolved / report.total,
      planned: report.planned ?? report.total + infrastructure.length,
      infrastructure: infrastructure.length,
      notRun: Math.max(0, (report.not_finished ?? 0) - infrastructure.length),
      meanSteps: report.total === 0 ? null : report.mean_steps,
      meanDurationMs: report.total === 0 ? null : report.mean_duration_ms,
      // Counted from the tasks when the report predates the figure, so an older report reads the same.
      suspectedHacks: report.suspected_hacks ?? report.tasks.filter((t) => t.suspected_hacks !== undefined).length,
      passAtK: passAtKTable(tasks.map((t) => ({ n: t.graded, c: t.resolved }))),
    },
    tasks,
    failureGroups: failureGroups(report.tasks),
    infrastructure,
  };
}

function failureGroups(tasks: readonly TaskOutcome[]): RunReportView['failureGroups'] {
  const groups = new Map<string, Map<string, string[]>>();
  for (const t of tasks) {
    if (t.resolved) continue;
    const group = groupNames[t.termination_reason];
    const reasons = groups.get(group) ?? new Map<string, string[]>();
    groups.set(group, reasons);
    const reason = t.failure_reason ?? t.termination_reason;
    reasons.set(reason, [...(reasons.get(reason) ?? []), t.task_id]);
  }
  return [...groups]
    .map(([group, reasons]) => ({
      group,
      count: [...reasons.values()].reduce((n, ts) => n + ts.length, 0),
      reasons: [...reasons].map(([reason, ts]) => ({ reason, tasks: ts })).sort((a, b) => b.tasks.length - a.tasks.length),
    }))
    .sort((a, b) => b.count - a.count || a.group.localeCompare(b.group));
}

/** Reads `report.json` of a run folder into the page's view; a missing or invalid file is a message naming it and what to do. */
export async function readReportView(dir: string): Promise<RunReportResult> {
  const layout = runLayout(dir);
  let text: string;
  try {
    text = await readFile(layout.report, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return {
        ok: false,
        message: `${layout.report} does not exist: the run has not written its report yet (it is still running, or it stopped before the end). Show Run Log says why; a resume finishes it.`,
      };
    if (code === 'EISDIR') return { ok: false, message: `${layout.report} is a folder, not the run's report.` };
    return { ok: false, message: `${layout.report} cannot be read: ${errorMessage(error)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${layout.report} is not JSON (${errorMessage(error)}); open it as text to see what was written.` };
  }
  const parsed = runReportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      message: `${layout.report}: field ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'}. It is not a report gp wrote; open it as text.`,
    };
  }
  const launch = await readLaunchRecord(layout.launch);
  return { ok: true, report: reportView(dir, parsed.data, launch.ok ? launch.record.command : null) };
}
