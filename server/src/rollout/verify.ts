/**
 * `gp dataset verify`: every task's tests run with no patch and with its gold patch, `repeats`
 * times each, in one sandbox per task (reset between runs), through a bounded pool, into a run
 * folder like any run's: `status.json`, `events.jsonl`, `test_runs.jsonl` and `tests/` (every run
 * and its log), `verdicts.jsonl` (one verdict per task, verifyVerdict.ts) and `verification.json`.
 *
 * Resume: a task with a verdict in the folder is not run again, unless that verdict was an
 * infrastructure failure (the machine, not the task), which a resume runs again.
 * Interrupt: once `signal` aborts no task starts; running ones are cut short by closing their
 * sandboxes, and get no verdict.
 */
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { TaskVerdict, VerdictStatus, VerificationSummary } from '../protocol/verify.js';
import { verdictStatuses } from '../protocol/verify.js';
import { EventLog, readVerdicts, recordTestRun, runLayout, verdictWriter, writeVerificationSummary, type RunEventInput } from '../runs/index.js';
import { SandboxError, type Sandbox } from '../sandbox/index.js';
import { decodeTestList, type TaskEntry } from '../tasks/index.js';
import { describeFindings, graderFacts, graderFindingsOfPatch, graderTaskSurface, runTaskTests, type GraderFacts } from '../testing/index.js';
import { errorMessage } from '../util/errors.js';
import { isoTimestamp } from '../util/time.js';
import { describeInfrastructure, infrastructureFailure } from './infrastructure.js';
import { StatusFile } from './run.js';
import { gradeStrictness, verdictOf, type GradedRun } from './verifyVerdict.js';

export interface VerifyTask {
  readonly task: TaskEntry;
  /** The task's line in its dataset file. */
  readonly line: number;
  /** The gold patch; undefined when the dataset has none for this task. */
  readonly gold: string | undefined;
}

export interface VerifyObserver {
  runStarted?(info: { readonly total: number; readonly alreadyDone: number; readonly toRun: number }): void;
  taskStarted?(task: VerifyTask): void;
  taskFinished?(task: VerifyTask, verdict: TaskVerdict): void;
}

export interface VerifyOptions {
  readonly runDir: string;
  /** The command line, for `status.json` and `events.jsonl`. */
  readonly command: string;
  readonly dataset: string;
  readonly repeats: number;
  readonly parallel: number;
  readonly testTimeoutMs: number;
  readonly signal: AbortSignal;
  readonly openSandbox: (task: TaskEntry) => Promise<Sandbox>;
  /**
   * Grade a gold patch that changes the grader-facing surface (testing/graderSurface.ts) anyway, noting
   * its protected paths in the verdict; without it such a task's verdict is `gold-protected`.
   */
  readonly allowProtected?: boolean;
  /** The grader-surface facts of an open sandbox; the process's cache (testing/graderFacts.ts) when absent. */
  readonly facts?: (sandbox: Sandbox) => Promise<GraderFacts>;
  readonly observer?: VerifyObserver;
}

export interface VerifyResult {
  readonly state: 'finished' | 'failed' | 'interrupted';
  /** Every task's latest verdict, earlier processes' included, in dataset order. */
  readonly verdicts: TaskVerdict[];
  /** How many had a verdict before this process started. */
  readonly resumed: number;
  readonly counts: Record<VerdictStatus, number>;
  readonly warnings: string[];
}

function tally(verdicts: Iterable<TaskVerdict>): Record<VerdictStatus, number> {
  const counts = Object.fromEntries(verdictStatuses.map((s) => [s, 0])) as Record<VerdictStatus, number>;
  for (const v of verdicts) counts[v.status] += 1;
  return counts;
}

/** A sandbox failure that is the machine's (a resume runs the task again), not the task's. */
function isInfrastructure(error: unknown): string | undefined {
  const failure = infrastructureFailure(error);
  return failure === undefined ? undefined : describeInfrastructure(failure);
}

/** Runs one task's verification in one sandbox; never throws for the task's own failures. */
async function verifyOne(
  item: VerifyTask,
  options: VerifyOptions,
  track: (sandbox: Sandbox | undefined) => void,
): Promise<Omit<TaskVerdict, 'kind' | 'task_id' | 'line' | 'started_at' | 'duration_ms' | 'repeats'>> {
  const { task, gold } = item;
  const fail = decodeTestList(task.FAIL_TO_PASS ?? [], 'FAIL_TO_PASS');
  const pass = decodeTestList(task.PASS_TO_PASS ?? [], 'PASS_TO_PASS');
  const none = { flaky: [], failing: [], passing_without_fix: [], runs: [] };
  if (!fail.ok || !pass.ok) return { ...none, status: 'no-gold', reason: !fail.ok ? fail.message : !pass.ok ? pass.message : '' };
  if (fail.tests.length === 0) return { ...none, status: 'no-gold', reason: 'the task has no FAIL_TO_PASS tests, so no run can show that a fix is needed' };
  if (gold === undefined || gold.trim() === '')
    return { ...none, status: 'no-gold', reason: 'the dataset has no gold patch for this task (give one with --gold)' };
  let sandbox: Sandbox | undefined;
  const runs: TaskVerdict['runs'] = [];
  const graded: GradedRun[] = [];
  try {
    sandbox = await options.openSandbox(task);
    track(sandbox);
    // The gold patch meets the same rule as an episode's patch: one that changes what the grader reads is reported, not graded.
    const findings = graderFindingsOfPatch(gold, graderTaskSurface(task), await (options.facts ?? graderFacts)(sandbox));
    const noted = findings.length === 0 ? {} : { protected_paths: findings };
    if (findings.length > 0 && options.allowProtected !== true) {
      return {
        ...none,
        ...noted,
        status: 'gold-protected',
        reason: `the gold patch changes what the grader reads: ${describeFindings(findings).join('; ')}. If the fix really needs it, verify again with --allow-protected (the verdict then lists these paths)`,
      };
    }
    for (let repeat = 1; repeat <= options.repeats; repeat++) {
      for (const patch of ['empty', 'gold'] as const) {
        if (options.signal.aborted) return { ...none, status: 'infrastructure', reason: 'interrupted' };
        await sandbox.reset();
        if (patch === 'gold') {
          const applied = await sandbox.applyPatch(gold);
          if (!applied.applied)
            return { ...none, runs, status: 'gold-does-not-apply', reason: `the gold patch does not apply at the base commit: ${applied.message}` };
        }
        // The empty run is graded as a submission of nothing ('' rather than SWE-bench's None, which would never resolve).
        const run = await runTaskTests(sandbox, task, { patch: patch === 'gold' ? gold : '', timeoutMs: options.testTimeoutMs });
        const record = await recordTestRun(options.runDir, run);
        const grade = run.record.grade;
        graded.push({ patch, repeat, grade, tests: run.record.tests });
        runs.push({
          patch,
          repeat,
          resolution: grade.kind === 'swebench' ? grade.resolution : 'not-gradable',
          durationMs: run.record.durationMs,
          ...(gradeStrictness(grade).length === 0 ? {} : { strictness: gradeStrictness(grade) }),
          ...(record.logPath === undefined ? {} : { logPath: record.logPath }),
        });
      }
    }
    return {
      ...verdictOf(graded, fail.tests, pass.tests),
      ...noted,
      runs,
      backend: sandbox.backend,
      ...(sandbox.environment === undefined ? {} : { environment: sandbox.environment }),
    };
  } catch (error) {
    const infrastructure = isInfrastructure(error);
    if (infrastructure !== undefined) return { ...none, runs, status: 'infrastructure', reason: `${infrastructure}: ${errorMessage(error)}` };
    if (error instanceof SandboxError) return { ...none, runs, status: 'cannot-run', reason: error.message };
    // Anything else is not the task's outcome either: say so and let a resume run it again.
    return { ...none, runs, status: 'infrastructure', reason: `unexpected failure: ${errorMessage(error)}` };
  } finally {
    track(undefined);
    await sandbox?.close().catch(() => undefined);
  }
}

export async function verifyTasks(items: readonly VerifyTask[], options: VerifyOptions): Promise<VerifyResult> {
  const layout = runLayout(options.runDir);
  await mkdir(options.runDir, { recursive: true });
  const events = new EventLog(layout.events);
  const warnings: string[] = [];
  const record = (event: RunEventInput) =>
    events.append(event).catch((error: unknown) => {
      warnings.push(`${layout.events} could not be written: ${errorMessage(error)}`);
    });
  const earlier = await readVerdicts(options.runDir);
  for (const problem of earlier.problems) warnings.push(`${layout.verdicts}: ${problem} (the line is ignored; its task runs again)`);
  const verdicts = new Map<string, TaskVerdict>();
  for (const item of items) {
    const v = earlier.verdicts.get(item.task.task_id);
    if (v !== undefined && v.status !== 'infrastructure') verdicts.set(item.task.task_id, v);
  }
  const resumed = verdicts.size;
  const toRun = items.filter((item) => !verdicts.has(item.task.task_id));
  const counts = () => {
    const all = [...verdicts.values()];
    const byStatus = tally(all);
    return {
      total: items.length,
      finished: all.filter((v) => v.status !== 'infrastructure').length,
      resolved: byStatus.certified + byStatus.flaky,
      errored: all.length - byStatus.certified - byStatus.flaky - byStatus.infrastructure,
      ...(byStatus.infrastructure === 0 ? {} : { infrastructure: byStatus.infrastructure }),
    };
  };
  const startedAt = isoTimestamp();
  const status = new StatusFile(layout.status, {
    state: 'running',
    command: options.command,
    pid: process.pid,
    host: hostname(),
    started_at: startedAt,
    episodes: counts(),
  });
  await status.write();
  await record({ kind: 'run-start', command: options.command, total: items.length, resumed, dataset: options.dataset });
  options.observer?.runStarted?.({ total: items.length, alreadyDone: resumed, toRun: toRun.length });

  const writer = verdictWriter(options.runDir);
  const open = new Set<Sandbox>();
  // An interrupt closes the open sandboxes, which cuts their test commands short.
  const onAbort = () => {
    for (const sandbox of open) void sandbox.close().catch(() => undefined);
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  const queue = [...toRun];
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined && !options.signal.aborted; item = queue.shift()) {
      options.observer?.taskStarted?.(item);
      const started = Date.now();
      const startedIso = isoTimestamp();
      let mine: Sandbox | undefined;
      const fields = await verifyOne(item, options, (sandbox) => {
        if (mine !== undefined) open.delete(mine);
        mine = sandbox;
        if (sandbox !== undefined) open.add(sandbox);
      });
      // A task cut short by the interrupt has no verdict: a resume runs it.
      if (options.signal.aborted) break;
      const verdict: TaskVerdict = {
        kind: 'verdict',
        task_id: item.task.task_id,
        line: item.line,
        repeats: options.repeats,
        started_at: startedIso,
        duration_ms: Date.now() - started,
        ...fields,
      };
      await writer.append(verdict);
      verdicts.set(item.task.task_id, verdict);
      await status.write().catch((error: unknown) => warnings.push(`${layout.status} could not be written: ${errorMessage(error)}`));
      options.observer?.taskFinished?.(item, verdict);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel, toRun.length)) }, worker));
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    await writer.flush();
  }
  const ordered = items.map((item) => verdicts.get(item.task.task_id)).filter((v): v is TaskVerdict => v !== undefined);
  const byStatus = tally(ordered);
  const state = options.signal.aborted ? 'interrupted' : byStatus.infrastructure > 0 ? 'failed' : 'finished';
  const endedAt = isoTimestamp();
  const reason =
    state === 'failed'
      ? `${byStatus.infrastructure} task(s) failed for a reason of the machine; a resume runs them again`
      : state === 'interrupted'
        ? 'interrupted'
        : undefined;
  status.status.state = state;
  status.status.ended_at = endedAt;
  status.status.episodes = counts();
  if (reason !== undefined) status.status.exit_reason = reason;
  await status.write();
  const summary: VerificationSummary = {
    dataset: options.dataset,
    tasks: items.length,
    repeats: options.repeats,
    counts: byStatus,
    started_at: startedAt,
    ended_at: endedAt,
  };
  await writeVerificationSummary(options.runDir, summary);
  await record({ kind: 'run-end', state, ...(reason === undefined ? {} : { reason }) });
  await events.flush();
  return { state, verdicts: ordered, resumed, counts: byStatus, warnings };
}
