/**
 * The evaluation summary (`report.json`) built from episodes' end lines alone, so a resumed run's
 * report covers the episodes finished before the crash exactly like the ones after it. Each
 * unresolved episode gets one line saying why: the tests that failed, the limit it hit, the error.
 */
import type { BackendSummary, InfrastructureFailure, RunReport, TaskOutcome, TrajectoryEnd } from '../protocol/runs.js';
import type { TestGrade } from '../protocol/testReport.js';
import { isoTimestamp } from '../util/time.js';
import { summariseModel } from './modelFigures.js';

export interface FinishedEpisode {
  readonly end: TrajectoryEnd;
  /** Relative to the run directory. */
  readonly trajectory: string;
  readonly instanceReport: string | undefined;
}

/** An episode the infrastructure failed: no outcome, and why. */
export type InfrastructureFailed = InfrastructureFailure & { readonly task_id: string; readonly episode_id: string };

export interface ReportInput {
  readonly run: string;
  readonly agent: string;
  readonly dataset: string;
  readonly createdAt: Date;
  readonly episodes: readonly FinishedEpisode[];
  /** How the run ended; with `planned`, the report says how many episodes of the plan did not finish. */
  readonly state?: 'finished' | 'failed' | 'interrupted';
  /** Episodes in the plan; defaults to the finished ones. */
  readonly planned?: number;
  readonly backend?: BackendSummary;
  /** Episodes the infrastructure failed: in `not_finished`, listed beside the rate, never in it. */
  readonly infrastructure?: readonly InfrastructureFailed[];
  /** Whether a fallback agent could take a model agent's steps (`rollout.fallback_to_rule`). */
  readonly fallbackEnabled?: boolean;
}

/**
 * An interrupted run in one line: what ran, what it resolved, and what did not run, so a rate over
 * the episodes that ran is never read as a rate over the plan.
 */
export function interruptedSummary(counts: { readonly ran: number; readonly resolved: number; readonly planned: number }): string {
  return `interrupted: ${counts.ran} of ${counts.planned} episodes ran, ${counts.resolved} resolved; ${counts.planned - counts.ran} did not run`;
}

const limitWords: Partial<Record<TrajectoryEnd['termination_reason'], string>> = {
  max_steps: 'hit the step limit',
  repo_op_limit: 'hit the repository operation limit',
  step_timeout: 'a step ran past env.step_timeout',
  episode_timeout: 'the episode ran past env.episode_timeout',
};

function names(list: readonly string[], most = 3): string {
  const shown = list.slice(0, most).join(', ');
  return list.length > most ? `${shown} and ${list.length - most} more` : shown;
}

/** Why a grade is not a pass, in words; undefined when it passed. */
export function gradeFailure(grade: TestGrade): string | undefined {
  switch (grade.kind) {
    case 'swebench': {
      if (grade.report.resolved) return undefined;
      const status = grade.report.tests_status;
      if (!grade.report.patch_successfully_applied) return grade.report.patch_exists ? 'the patch was not applied' : 'no patch';
      if (status === undefined) return `${grade.resolution}: no test results`;
      const parts: string[] = [];
      if (status.FAIL_TO_PASS.failure.length > 0) parts.push(`FAIL_TO_PASS still failing: ${names(status.FAIL_TO_PASS.failure)}`);
      if (status.PASS_TO_PASS.failure.length > 0) parts.push(`PASS_TO_PASS broken: ${names(status.PASS_TO_PASS.failure)}`);
      return parts.length > 0 ? parts.join('; ') : grade.resolution;
    }
    case 'r2e': {
      const g = grade.grade;
      if (g.reward === 1) return undefined;
      const parts: string[] = [];
      if (g.noSummary) parts.push('the log had no pytest summary');
      if (g.mismatched.length > 0) parts.push(`mismatched: ${names(g.mismatched.map((m) => `${m.test} (${m.actual}, expected ${m.expected})`))}`);
      if (g.missing.length > 0) parts.push(`missing: ${names(g.missing)}`);
      return parts.length > 0 ? parts.join('; ') : 'R2E reward 0';
    }
    case 'log':
      return grade.passed ? undefined : grade.reason;
    case 'verifier':
      return grade.resolved ? undefined : `the verifier's reward is ${grade.reward} (${grade.from}); 1 or more resolves the task`;
    case 'invalid':
      return `not gradable: ${grade.reason}`;
  }
}

/** One line on why an episode did not resolve its task; undefined when it did. */
export function failureReason(end: TrajectoryEnd): string | undefined {
  if (end.resolved) return undefined;
  const tests = end.grade === undefined ? undefined : gradeFailure(end.grade);
  switch (end.termination_reason) {
    case 'error':
      return `error: ${end.error ?? 'unknown'}`;
    case 'interrupted':
      return 'interrupted';
    case 'submitted':
      return `tests failed: ${tests ?? 'not resolved'}`;
    default: {
      const limit = `${limitWords[end.termination_reason] ?? end.termination_reason} after ${end.steps} steps`;
      return tests === undefined ? `${limit}, no passing submit` : `${limit}; tests: ${tests}`;
    }
  }
}

export function taskOutcome(e: FinishedEpisode): TaskOutcome {
  const reason = failureReason(e.end);
  return {
    task_id: e.end.task_id,
    episode_id: e.end.episode_id,
    resolved: e.end.resolved,
    total_reward: e.end.total_reward,
    steps: e.end.steps,
    duration_ms: e.end.duration_ms,
    termination_reason: e.end.termination_reason,
    ...(reason === undefined ? {} : { failure_reason: reason }),
    trajectory: e.trajectory,
    ...(e.instanceReport === undefined ? {} : { instance_report: e.instanceReport }),
    ...(e.end.grade?.kind === 'verifier' ? { verifier_reward: e.end.grade.reward } : {}),
    ...(e.end.model === undefined ? {} : { model: e.end.model }),
    ...(e.end.suspected_hacks === undefined ? {} : { suspected_hacks: e.end.suspected_hacks }),
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

export function buildReport(input: ReportInput): RunReport {
  return reportFromOutcomes(input, input.episodes.map(taskOutcome));
}

/** A report from task outcomes already made (the shards of a sharded evaluation, merged). */
export function reportFromOutcomes(input: Omit<ReportInput, 'episodes'>, tasks: readonly TaskOutcome[]): RunReport {
  const resolved = tasks.filter((t) => t.resolved).length;
  const reasons: Record<string, number> = {};
  for (const t of tasks) reasons[t.termination_reason] = (reasons[t.termination_reason] ?? 0) + 1;
  const planned = Math.max(input.planned ?? tasks.length, tasks.length);
  const model = summariseModel(tasks, input.fallbackEnabled ?? false);
  // Counted apart from the other failures: a tampered runner is the policy gaming its reward, not the machinery failing.
  const tampered = (input.infrastructure ?? []).filter((f) => f.rule === 'runner-tampered').length;
  return {
    run: input.run,
    agent: input.agent,
    dataset: input.dataset,
    created_at: isoTimestamp(input.createdAt),
    ...(input.state === undefined ? {} : { state: input.state }),
    planned,
    not_finished: planned - tasks.length,
    total: tasks.length,
    resolved,
    resolved_rate: tasks.length === 0 ? 0 : resolved / tasks.length,
    mean_steps: mean(tasks.map((t) => t.steps)),
    mean_duration_ms: mean(tasks.map((t) => t.duration_ms)),
    termination_reasons: reasons,
    suspected_hacks: tasks.filter((t) => t.suspected_hacks !== undefined).length,
    ...(input.backend === undefined ? {} : { backend: input.backend }),
    tasks: [...tasks],
    ...(model === undefined ? {} : { model }),
    ...(input.infrastructure === undefined || input.infrastructure.length === 0
      ? {}
      : { infrastructure_failures: input.infrastructure.map((f) => ({ ...f })) }),
    ...(tampered === 0 ? {} : { runner_tampered: tampered }),
  };
}
