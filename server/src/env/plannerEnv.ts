/**
 * The planner environment (docs/original-system.md#b-the-environment, with its defects fixed): it builds the code graph through the
 * sandbox, executes one action per step, keeps working memory, computes rewards with one sign
 * convention, and ends the episode on submit, a step or repository-operation limit, or a timeout.
 * A reply that failed to parse costs a step and comes back as an observation naming the error.
 */
import type { Action, ProtocolError, RepairAction } from '../protocol/actions.js';
import type { ActionResult, Observation, TerminationReason } from '../protocol/observation.js';
import type { GraphEdge, GraphNode } from '../protocol/graph.js';
import { testStatuses, type TestGrade, type TestStatus } from '../protocol/testReport.js';
import { patchChanges, type Sandbox } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import { graderFacts, runTaskTests, gradePassed } from '../testing/index.js';
import type { GraderFinding } from '../protocol/graderSurface.js';
import { buildCodeGraph } from '../graph/index.js';
import type { CodeGraph, RetrieverName } from '../graph/index.js';
import { expand, find, read } from './explore.js';
import { protectedFindings } from './guard.js';
import { suspectedHacks } from './hackSignals.js';
import { WorkingMemory } from './memory.js';
import { renderObservation, renderResult } from './render.js';
import { repair } from './repair.js';
import { limitReached, stepReward } from './rewards.js';
import { summariseTests } from './testSummary.js';
import type { EnvOptions, PlannerEnv, StepOutcome } from './types.js';

/** Actions that touch the repository and so count against `repo_op_limit`. */
/** Node ids shown as the issue's hints: enough starting points, few enough to read in one turn. */
const maxHints = 8;

const repoOps: ReadonlySet<Action['type']> = new Set(['explore', 'repair', 'submit']);

interface Progress {
  steps: number;
  repoOps: number;
  done: boolean;
  resolved: boolean;
  reason?: TerminationReason;
  /** The reward a Harbor verifier wrote for the submit that ended the episode. */
  verifierReward?: number;
}

function issueOf(task: TaskEntry): { title: string; body: string } {
  return { title: task.issue?.title ?? task.task_id, body: task.issue?.body ?? task.issue?.description ?? '' };
}

class Env implements PlannerEnv {
  private memory: WorkingMemory;
  private progress: Progress = { steps: 0, repoOps: 0, done: false, resolved: false };
  private latestExplore: { nodes: GraphNode[] } | undefined;
  private latestObservation: string | undefined;
  private startedAt = Date.now();
  private hints: string[] = [];
  private hintRetrievers: RetrieverName[] = [];
  private lastGrade: TestGrade | undefined;
  /**
   * The repository's diff against its base as the last repair left it, or the patch a submit
   * graded; undefined before the first and while a step that may change the repository runs (an
   * error in it leaves the diff unknown). Explore, memory and noop steps never touch the sandbox,
   * so the next repair or submit takes the diff from here instead of a round trip to the sandbox.
   */
  private knownDiff: string | undefined;
  /** Records the last step started and did not wait for (`settled`). */
  private pending: Promise<void>[] = [];
  private writeFailure: { readonly error: unknown } | undefined;
  private readonly controller = new AbortController();
  readonly maxSteps: number;
  /** Node ids this episode's observations named, for `graphEdges`. */
  private readonly shown = new Set<string>();

  constructor(
    readonly task: TaskEntry,
    readonly sandbox: Sandbox,
    private readonly graph: CodeGraph,
    private readonly options: EnvOptions,
  ) {
    this.maxSteps = options.limits.maxSteps;
    this.memory = new WorkingMemory(options.memoryLimits, (id) => graph.edgesOf(id));
  }

  get grade(): TestGrade | undefined {
    return this.lastGrade;
  }

  async reset(): Promise<Observation> {
    this.memory = new WorkingMemory(this.options.memoryLimits, (id) => this.graph.edgesOf(id));
    this.shown.clear();
    this.progress = { steps: 0, repoOps: 0, done: false, resolved: false };
    this.latestExplore = undefined;
    this.latestObservation = undefined;
    this.lastGrade = undefined;
    this.knownDiff = undefined;
    this.startedAt = Date.now();
    const issue = this.task.issue;
    const frame = issue?.failure_frame;
    const semantic = await this.options.semantic?.(this.graph);
    const ranking = await this.graph.rank(
      {
        ...(issue?.title === undefined ? {} : { title: issue.title }),
        body: issue?.body ?? issue?.description ?? '',
        ...(frame === undefined ? {} : { failure_frame: frame }),
        ...(issue?.top_assert === undefined ? {} : { top_assert: issue.top_assert }),
      },
      { limit: maxHints, ...(semantic === undefined ? {} : { semantic }) },
    );
    this.hints = ranking.nodes.map((n) => n.node.id);
    this.hintRetrievers = ranking.retrievers;
    // Embedding new code the first time can take a while; the episode's clock starts after it.
    this.startedAt = Date.now();
    return this.observe(undefined);
  }

  async step(input: Action | ProtocolError): Promise<StepOutcome> {
    const started = Date.now();
    // Step durations use the monotonic clock: most steps take about a millisecond.
    const measured = performance.now();
    if (this.progress.done) throw new Error('the episode is over; reset before stepping again');
    if (started - this.startedAt > this.options.limits.episodeTimeoutMs) return this.abort('episode_timeout');
    let result: ActionResult;
    let taskCommandsMs = 0;
    let stepTimedOut = false;
    if (!('type' in input)) {
      result = { kind: 'protocol-error', error: input };
    } else {
      if (repoOps.has(input.type)) this.progress.repoOps += 1;
      const executed = await this.execute(input, started + this.options.limits.stepTimeoutMs);
      result = executed.result;
      taskCommandsMs = executed.taskCommandsMs;
      stepTimedOut = executed.timedOut || Date.now() - started > this.options.limits.stepTimeoutMs;
    }
    this.progress.steps += 1;
    if (result.kind === 'submit') {
      this.progress.done = true;
      this.progress.resolved = result.resolved && !stepTimedOut;
      if (result.grade.kind === 'verifier' && !stepTimedOut) this.progress.verifierReward = result.grade.reward;
      // Tests cut short by the step's time limit prove nothing; the limit is what ended the episode.
      this.progress.reason = stepTimedOut ? 'step_timeout' : 'submitted';
    } else {
      const reason = stepTimedOut ? 'step_timeout' : limitReached({ ...this.progress, maxSteps: this.maxSteps, repoOpLimit: this.options.limits.repoOpLimit });
      if (reason !== undefined) {
        this.progress.done = true;
        this.progress.reason = reason;
      }
    }
    return this.outcome(result, measured, taskCommandsMs);
  }

  async abort(reason: TerminationReason): Promise<StepOutcome> {
    const measured = performance.now();
    this.controller.abort();
    this.progress.done = true;
    this.progress.reason = reason;
    return this.outcome({ kind: 'error', error: { code: reason, message: `the episode ended: ${reason.replace('_', ' ')}` } }, measured, 0);
  }

  patch(): Promise<string> {
    return this.knownDiff === undefined ? this.sandbox.diff() : Promise.resolve(this.knownDiff);
  }

  async settled(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
    const failure = this.writeFailure;
    this.writeFailure = undefined;
    if (failure !== undefined) throw failure.error;
  }

  /** `measured` is the step's start on `performance.now()`'s clock. */
  private outcome(result: ActionResult, measured: number, taskCommandsMs: number): StepOutcome {
    const { done, resolved, reason, verifierReward } = this.progress;
    const guard = this.options.guard;
    const penalty = result.kind === 'submit' && result.protected_paths !== undefined && guard.protectedPaths === 'penalise' ? (guard.protectedPenalty ?? 0) : 0;
    const verdict = { done, resolved, ...(reason === undefined ? {} : { reason }), ...(verifierReward === undefined ? {} : { verifierReward }) };
    const reward = stepReward(this.options.rewards, verdict) - penalty;
    return {
      observation: this.observe(result),
      reward,
      done,
      ...(done && reason !== undefined ? { terminationReason: reason } : {}),
      timings: { env_ms: performance.now() - measured, task_commands_ms: taskCommandsMs },
    };
  }

  private async execute(action: Action, deadline: number): Promise<{ result: ActionResult; taskCommandsMs: number; timedOut: boolean }> {
    const plain = (result: ActionResult) => ({ result, taskCommandsMs: 0, timedOut: false });
    switch (action.type) {
      case 'explore': {
        const result =
          action.op === 'find'
            ? find(this.graph, action)
            : action.op === 'expand'
              ? expand(this.graph, action, new Set(this.memory.nodes().map((n) => n.id)))
              : read(this.graph, action);
        if (result.kind === 'find') this.latestExplore = { nodes: result.nodes };
        if (result.kind === 'expand') this.latestExplore = { nodes: result.candidates };
        return plain(result);
      }
      case 'memory':
        return plain(this.remember(action));
      case 'repair':
        return this.repair(action, deadline);
      case 'submit':
        return this.submit(deadline);
      case 'noop':
        return plain({ kind: 'noop' });
    }
  }

  private remember(action: Extract<Action, { type: 'memory' }>): ActionResult {
    if (action.target === 'explore') {
      return action.intent === 'commit'
        ? this.memory.commitExplore(this.latestExplore, action.scope)
        : this.memory.deleteExplore(action.selector, action.scope);
    }
    return action.intent === 'commit'
      ? this.memory.commitObservation(this.latestObservation, action.scope)
      : this.memory.deleteObservation(action.selector, action.scope);
  }

  private async repair(action: RepairAction, deadline: number): Promise<{ result: ActionResult; taskCommandsMs: number; timedOut: boolean }> {
    const knownDiff = this.knownDiff;
    this.knownDiff = undefined;
    const outcome = await repair(
      {
        sandbox: this.sandbox,
        task: this.task,
        graph: this.graph,
        memory: this.memory,
        options: this.options,
        issue: issueOf(this.task),
        signal: this.controller.signal,
        deadline,
        knownDiff,
      },
      action,
    );
    this.knownDiff = outcome.result.diff;
    if (outcome.changed.length > 0) {
      await this.graph.update(this.sandbox, outcome.changed);
      this.memory.refresh((id) => this.graph.node(id));
    }
    this.latestObservation = renderResult(outcome.result).slice(0, 3).join(' | ');
    return outcome;
  }

  private async submit(deadline: number): Promise<{ result: ActionResult; taskCommandsMs: number; timedOut: boolean }> {
    // The submitted patch is the repository's diff before the tests run: what they grade, without
    // whatever the tests themselves write. The episode's end line reports the same patch.
    const patch = this.knownDiff ?? (await this.sandbox.diff());
    this.knownDiff = undefined;
    const findings = protectedFindings(patchChanges(patch), this.options.guard);
    const policy = this.options.guard.protectedPaths ?? 'refuse';
    if (policy === 'refuse' && findings.length > 0) return this.refusedSubmit(patch, findings);
    const timeoutMs = Math.max(1000, Math.min(this.options.limits.testTimeoutMs, deadline - Date.now()));
    const run = await runTaskTests(this.sandbox, this.task, { timeoutMs, patch });
    // The record is written while the outcome goes back (a service's client waits for it, not for
    // the disk); the episode waits for it before the step's trajectory line (`settled`).
    const recorded = this.options.recordTestRun?.(run);
    // Caught at once, so a failed write is never an unhandled rejection; `settled` rethrows it.
    if (recorded !== undefined)
      this.pending.push(
        recorded.then(
          () => undefined,
          (error: unknown) => void (this.writeFailure ??= { error }),
        ),
      );
    this.lastGrade = run.record.grade;
    this.knownDiff = patch;
    // Flagged whatever the policy: a graded patch that changes what the grader reads is worth seeing.
    const guarded = findings.map((f) => f.path);
    // Flagged for people only (env/hackSignals.ts): the reward does not depend on it.
    const suspected = suspectedHacks(patch, this.options.guard, findings);
    const result: ActionResult = {
      kind: 'submit',
      resolved: gradePassed(run.record.grade),
      tests: summariseTests(run),
      grade: run.record.grade,
      patch,
      ...(guarded.length === 0 ? {} : { protected_paths: guarded }),
      ...(suspected.length === 0 ? {} : { suspected_hacks: suspected }),
    };
    return { result, taskCommandsMs: run.record.durationMs, timedOut: run.record.timedOut };
  }

  /**
   * A submit whose patch changes what the grader reads, under `protected_paths: refuse`. The guard
   * refuses such repairs, so the change was written by the code under test while earlier tests ran
   * (a test run that leaves a `conftest.py` behind for the next one). Nothing is run: the submit is
   * a failed outcome that says why, never a pass and never "not gradable" (which training masks).
   */
  private refusedSubmit(patch: string, findings: readonly GraderFinding[]): { result: ActionResult; taskCommandsMs: number; timedOut: boolean } {
    const named = findings
      .slice(0, 3)
      .map((f) => `${f.path} (${f.rule}: ${f.reason})`)
      .join('; ');
    const reason = `refused: the submitted patch changes what the grader reads: ${named}${findings.length > 3 ? `; and ${findings.length - 3} more` : ''}. Repairs cannot make such changes, so code run by the tests wrote them; no tests were run.`;
    const grade: TestGrade = { kind: 'log', passed: false, reason };
    this.lastGrade = grade;
    this.knownDiff = patch;
    const counts = Object.fromEntries(testStatuses.map((status) => [status, 0])) as Record<TestStatus, number>;
    const suspected = suspectedHacks(patch, this.options.guard, findings);
    const result: ActionResult = {
      kind: 'submit',
      resolved: false,
      tests: { passed: false, counts, failing: [], tail: '', duration_ms: 0 },
      grade,
      patch,
      protected_paths: findings.map((f) => f.path),
      ...(suspected.length === 0 ? {} : { suspected_hacks: suspected }),
    };
    return { result, taskCommandsMs: 0, timedOut: false };
  }

  graphEdges(cap: number): { edges: GraphEdge[]; truncated: boolean } {
    const edges: GraphEdge[] = [];
    const seen = new Set<string>();
    for (const id of this.shown) {
      for (const e of this.graph.edgesOf(id)) {
        const key = `${e.kind}\n${e.src}\n${e.dst}`;
        if (seen.has(key)) continue;
        if (edges.length >= cap) return { edges, truncated: true };
        seen.add(key);
        edges.push({ src: e.src, dst: e.dst, kind: e.kind });
      }
    }
    return { edges, truncated: false };
  }

  /** Remembers the node ids an observation names. */
  private noteShown(last: ActionResult | undefined): void {
    for (const id of this.hints) this.shown.add(id);
    for (const n of this.memory.nodes()) this.shown.add(n.id);
    if (last?.kind === 'find') for (const n of last.nodes) this.shown.add(n.id);
    else if (last?.kind === 'expand') for (const c of last.candidates) this.shown.add(c.id);
    else if (last?.kind === 'read') for (const r of last.snippets) this.shown.add(r.node_id);
  }

  private observe(last: ActionResult | undefined): Observation {
    this.noteShown(last);
    const frame = this.task.issue?.failure_frame;
    const body: Omit<Observation, 'text'> = {
      task_id: this.task.task_id,
      step: this.progress.steps,
      max_steps: this.maxSteps,
      issue: issueOf(this.task),
      ...(frame?.path === undefined
        ? {}
        : {
            failure_frame: {
              path: frame.path,
              ...(frame.lineno === undefined ? {} : { line: frame.lineno }),
              ...(frame.function === undefined ? {} : { function: frame.function }),
            },
          }),
      hints: this.hints,
      hint_retrievers: this.hintRetrievers,
      ...(last === undefined ? {} : { last }),
      memory: {
        nodes: this.memory.nodes().map((n) => ({ id: n.id, kind: n.kind, path: n.path, span: n.span })),
        edges: this.memory.edgeCount(),
        notes: this.memory.notes(),
        size: this.memory.size,
        limits: this.memory.limits,
      },
      done: this.progress.done,
    };
    return { ...body, text: renderObservation(body) };
  }
}

/** Builds the code graph through the sandbox and returns an environment ready for `reset`. */
export async function openPlannerEnv(task: TaskEntry, sandbox: Sandbox, options: EnvOptions): Promise<PlannerEnv> {
  // The grader-surface rule needs the environment's module names and the repository's base files;
  // both are read while the graph is built, and the environment's once per environment.
  const [graph, facts] = await Promise.all([
    buildCodeGraph(sandbox),
    options.guard.facts === undefined ? graderFacts(sandbox) : Promise.resolve(options.guard.facts),
  ]);
  return new Env(task, sandbox, graph, { ...options, guard: { ...options.guard, facts } });
}
