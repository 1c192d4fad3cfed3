/** What `gp rollout` and `gp eval` print when they end: a table of episodes, and eval's SWE-bench-style summary. */
import { isAbsolute, join, relative } from 'node:path';
import type { BackendSummary, RunReport, TaskOutcome } from '../protocol/runs.js';
import { localBackendLoss, type BackendFallback } from '../protocol/backendChoice.js';
import { compareEpisodes, episodeName } from '../protocol/episodeName.js';
import { sandboxBackendNames } from '../protocol/sandboxBackends.js';
import { interruptedSummary, type RolloutResult } from '../rollout/index.js';
import { runLayout } from '../runs/index.js';
import { formatTable } from './containerCommands.js';
import { plural } from './output.js';

/** A path as short as it can be read from `cwd`. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function outcomeWord(t: TaskOutcome): string {
  if (t.resolved) return 'resolved';
  return t.termination_reason === 'submitted' ? 'unresolved' : t.termination_reason;
}

/** A row per episode, by task then attempt (`protocol/episodeName.ts`), whatever order they ended in. */
export function episodeTable(report: RunReport, runDir: string, cwd: string): string[] {
  const ref = (t: TaskOutcome) => ({ episodeId: t.episode_id, taskId: t.task_id });
  const rows = [...report.tasks]
    .sort((a, b) => compareEpisodes(ref(a), ref(b)))
    .map((t) => [
      episodeName(ref(t)),
      outcomeWord(t),
      String(t.steps),
      t.total_reward.toFixed(2),
      `${(t.duration_ms / 1000).toFixed(1)} s`,
      displayPath(join(runDir, t.trajectory), cwd),
    ]);
  return formatTable([['EPISODE', 'RESULT', 'STEPS', 'REWARD', 'TIME', 'TRAJECTORY'], ...rows]);
}

function percent(n: number, of: number): string {
  return of === 0 ? '0.0%' : `${((100 * n) / of).toFixed(1)}%`;
}

function means(report: RunReport): string {
  return `mean ${report.mean_steps.toFixed(1)} steps, ${(report.mean_duration_ms / 1000).toFixed(1)} s per episode`;
}

/** The run's totals; an interrupted run counts what ran and what did not, so its rate is not read as the plan's. */
export function totalsLine(report: RunReport): string {
  if (report.state === 'interrupted') {
    const counts = { ran: report.total, resolved: report.resolved, planned: report.planned ?? report.total };
    return `${interruptedSummary(counts)} (${percent(report.resolved, report.total)} of those that ran), ${means(report)}`;
  }
  const infrastructure = report.infrastructure_failures?.length ?? 0;
  // Beside the rate, never in it: an episode the infrastructure failed says nothing about its task.
  const beside = infrastructure === 0 ? '' : `; ${infrastructure} more reached no outcome (infrastructure failures, not counted)`;
  return `${report.resolved}/${report.total} resolved (${percent(report.resolved, report.total)}), ${means(report)}${beside}`;
}

/** The episodes the infrastructure failed, each with why, and how to run them again. */
export function infrastructureLines(report: RunReport, resumeCommand: string): string[] {
  const failures = report.infrastructure_failures ?? [];
  if (failures.length === 0) return [];
  return [
    `Infrastructure failures (${failures.length}; not counted in the resolved rate):`,
    ...failures.map((f) => `  ${f.episode_id}: ${f.code}: ${f.cause}`),
    `Run them again once the cause is fixed: ${resumeCommand}`,
  ];
}

/** How a fall-back to the local backend is announced the moment it first happens. */
export function fallbackNotice(fallback: BackendFallback): string {
  return `backend: local (sandbox.backend auto fell back: ${fallback.reason}; ${localBackendLoss})`;
}

/**
 * The backends a run used, in one line: `backend: docker`, or with a fall-back `backend: local
 * (auto fell back: …; commands run on this host …)`, each reason once, with its episode count
 * when it does not concern every local episode.
 */
export function backendLine(summary: BackendSummary): string {
  const counted = sandboxBackendNames.filter((name) => summary.episodes[name] > 0);
  const used =
    counted.length > 1
      ? counted.map((name) => `${name} for ${plural(summary.episodes[name], 'episode')}`).join(', ')
      : (counted[0] ?? 'none (no sandbox opened)');
  // `auto` falls back to the local backend only, so a reason that concerns every local episode needs no count.
  const local = summary.episodes.local;
  if (summary.fallbacks.length === 0) return `backend: ${used}`;
  const reasons = summary.fallbacks.map((f) => (f.episodes === local ? f.reason : `${f.reason} (${plural(f.episodes, 'episode')})`));
  return `backend: ${used} (auto fell back: ${reasons.join('; ')}; ${localBackendLoss})`;
}

/** SWE-bench's harness summary, with a line of why for every unresolved instance. */
export function evalSummary(report: RunReport, runDir: string, cwd: string): string[] {
  const errors = report.tasks.filter((t) => t.termination_reason === 'error');
  const unresolved = report.tasks.filter((t) => !t.resolved && t.termination_reason !== 'error');
  const resolved = report.tasks.filter((t) => t.resolved);
  const out = [
    report.state === 'interrupted'
      ? `Evaluation of ${report.total} of ${report.planned ?? report.total} instance(s) with the ${report.agent} agent (interrupted; ${report.not_finished ?? 0} did not run)`
      : `Evaluation of ${report.total} instance(s) with the ${report.agent} agent`,
    `  resolved:   ${resolved.length} (${percent(resolved.length, report.total)})`,
    `  unresolved: ${unresolved.length}`,
    `  errors:     ${errors.length}`,
  ];
  if (resolved.length > 0) out.push(`Resolved: ${resolved.map((t) => t.task_id).join(', ')}`);
  if (unresolved.length > 0) out.push('Unresolved:', ...unresolved.map((t) => `  ${t.task_id}: ${t.failure_reason ?? t.termination_reason}`));
  if (errors.length > 0) out.push('Errors:', ...errors.map((t) => `  ${t.task_id}: ${t.failure_reason ?? 'error'}`));
  const reports = report.tasks.filter((t) => t.instance_report !== undefined).length;
  if (reports > 0) out.push(`Per-instance reports: ${displayPath(runLayout(runDir).reports, cwd)}/<task>/report.json (${reports})`);
  return out;
}

/**
 * A model agent's run in two lines: how many steps its own replies drove, how many replies failed
 * to parse (by code), what the fallback took, and which resolved episodes the model got alone,
 * then its tokens and generation time. A resolved rate a fallback padded must never pass unsaid.
 */
export function modelLines(report: RunReport): string[] {
  const m = report.model;
  if (m === undefined) return [];
  const failures = Object.entries(m.parse_failures).sort((a, b) => b[1] - a[1]);
  const failed = failures.reduce((n, [, k]) => n + k, 0);
  const why = failures.length === 0 ? '' : ` (${failures.map(([code, n]) => `${code} ${n}`).join(', ')})`;
  const fallback = m.fallback_enabled ? `, fallback took ${plural(m.fallback_steps, 'step')}` : ', fallback off';
  const resolved = `resolved by the model alone: ${m.resolved_by_model_alone}${m.resolved_with_fallback > 0 ? `; with the fallback's help: ${m.resolved_with_fallback}` : ''}`;
  const perCall = m.calls === 0 ? 0 : m.generation_ms / m.calls / 1000;
  return [
    `model: ${m.model_steps}/${m.steps} steps from its own replies (${percent(m.model_steps, m.steps)}), ${failed}/${m.calls} replies failed to parse${why}${fallback}; ${resolved}`,
    `model: ${m.prompt_tokens} prompt and ${m.completion_tokens} completion tokens, ${perCall.toFixed(1)} s per call`,
  ];
}

export function interruptedLines(result: RolloutResult, resumeCommand: string): string[] {
  return [`Interrupted: ${result.notFinished.length} episode(s) not finished.`, `Resume with: ${resumeCommand}`];
}
