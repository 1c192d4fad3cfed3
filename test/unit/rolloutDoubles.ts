/**
 * Test doubles for rollout tests: a scripted sandbox, a scripted environment and a scripted agent.
 * They stand in for the real sandbox, `openPlannerEnv` and the rule agent where a test needs exact
 * control (delays, failures, hangs) and a count of what ran at once.
 */
import type { Action, ProtocolError } from '../../server/src/protocol/actions.js';
import type { ActionResult, Observation, SuspectedHack, TerminationReason } from '../../server/src/protocol/observation.js';
import type { BackendChoice, BackendFallback } from '../../server/src/protocol/backendChoice.js';
import type { ExecResult, PatchResult, SandboxSpec } from '../../server/src/protocol/sandbox.js';
import type { TestGrade } from '../../server/src/protocol/testReport.js';
import type { Agent, AgentDecision } from '../../server/src/agents/agent.js';
import type { EnvOptions, PlannerEnv, StepOutcome } from '../../server/src/env/types.js';
import type { EpisodeDeps, EpisodeSpec, PlannedTask } from '../../server/src/rollout/index.js';
import type { Sandbox, TreeFile } from '../../server/src/sandbox/index.js';
import { taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';

export function testTask(id: string, extra: Record<string, unknown> = {}): TaskEntry {
  return taskEntrySchema.parse({
    task_id: id,
    sandbox: { local_repo: '/nowhere', workdir: '/testbed' },
    issue: { title: `fix ${id}`, body: 'it is broken' },
    ...extra,
  });
}

export function plannedTasks(ids: readonly string[]): PlannedTask[] {
  return ids.map((id, i) => ({ task: testTask(id), baseDir: '/tmp', source: `tasks.jsonl:${i + 1}` }));
}

/** Counts how many scripted sandboxes are open at once, and the most there ever were. */
export class Occupancy {
  open = 0;
  most = 0;
  opened = 0;
  closed = 0;
  readonly openedIds: string[] = [];

  enter(id: string): void {
    this.open += 1;
    this.opened += 1;
    this.openedIds.push(id);
    this.most = Math.max(this.most, this.open);
  }

  leave(): void {
    this.open -= 1;
    this.closed += 1;
  }
}

export class TestSandbox implements Sandbox {
  readonly backend = 'local' as const;
  readonly workdir = '/testbed';
  readonly baseCommit = 'base';
  closed = false;
  patch = '';

  constructor(
    readonly id: string,
    readonly spec: SandboxSpec,
    private readonly occupancy: Occupancy,
    /** Set as `openSandbox` sets it; absent, the sandbox ran where it was asked to. */
    readonly choice?: BackendChoice,
  ) {
    occupancy.enter(id);
  }

  exec(): Promise<ExecResult> {
    return Promise.reject(new Error('the test sandbox runs no commands'));
  }
  readFile(): Promise<Buffer> {
    return Promise.reject(new Error('not in the test sandbox'));
  }
  writeFile(): Promise<void> {
    return Promise.resolve();
  }
  listFiles(): Promise<string[]> {
    return Promise.resolve([]);
  }
  readTree(): Promise<TreeFile[]> {
    return Promise.resolve([]);
  }
  applyPatch(): Promise<PatchResult> {
    return Promise.reject(new Error('not in the test sandbox'));
  }
  diff(): Promise<string> {
    return this.closed ? Promise.reject(new Error('closed')) : Promise.resolve(this.patch);
  }
  reset(): Promise<void> {
    return Promise.resolve();
  }
  scratchPath(name: string): string {
    return `/tmp/.gp-${name}`;
  }
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.occupancy.leave();
    }
    return Promise.resolve();
  }
}

/** What one scripted episode does. */
export interface Script {
  /** Actions before the submit that ends the episode. */
  readonly steps?: number;
  readonly resolved?: boolean;
  readonly stepDelayMs?: number;
  readonly agentDelayMs?: number;
  /** The agent throws at this step (1-based). */
  readonly agentThrowsAt?: number;
  /** The environment throws at this step. */
  readonly envThrowsAt?: number;
  /** What it throws there (a `SandboxError`, an errno error); a plain error by default. */
  readonly envThrows?: Error;
  /** The agent never answers from this step on and ignores its signal. */
  readonly agentHangsAt?: number;
  /** The environment's step never returns from this step on. */
  readonly envHangsAt?: number;
  /** Opening the sandbox takes this long. */
  readonly openDelayMs?: number;
  /** Opening the sandbox fails with this message. */
  readonly openFails?: string;
  /** Opening the sandbox throws this very error (a `SandboxError`, an errno error). */
  readonly openThrows?: Error;
  /** The sandbox opens on the local backend because `auto` fell back for this reason. */
  readonly fallback?: BackendFallback;
  readonly stepReward?: number;
  readonly episodeTimeoutMs?: number;
  /** The submit's tests cannot be graded, for this reason. */
  readonly notGradable?: string;
  /** What the submit records as suspected reward hacking. */
  readonly suspectedHacks?: SuspectedHack[];
}

export function observation(taskId: string, step: number, done: boolean, last?: ActionResult): Observation {
  const size = { nodes: 0, edges: 0, note_tokens: 0 };
  return {
    task_id: taskId,
    step,
    max_steps: 8,
    issue: { title: 't', body: 'b' },
    ...(last === undefined ? {} : { last }),
    memory: { nodes: [], edges: 0, notes: [], size, limits: { nodes: 10, edges: 10, note_tokens: 10 } },
    done,
    text: `step ${step}`,
  };
}

function submitResult(resolved: boolean, notGradable?: string, suspectedHacks?: SuspectedHack[]): ActionResult {
  const counts = { PASSED: resolved ? 2 : 1, FAILED: resolved ? 0 : 1, ERROR: 0, SKIPPED: 0, XFAIL: 0, XPASS: 0 };
  const grade: TestGrade =
    notGradable !== undefined
      ? { kind: 'invalid', reason: notGradable }
      : { kind: 'log', passed: resolved, reason: resolved ? 'all 2 tests passed' : '1 test(s) failed or errored' };
  return {
    kind: 'submit',
    resolved,
    tests: { passed: resolved, counts, failing: resolved ? [] : ['t::x'], tail: '', duration_ms: 3 },
    grade,
    patch: '--- a\n+++ b\n',
    ...(suspectedHacks === undefined ? {} : { suspected_hacks: suspectedHacks }),
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class TestEnv implements PlannerEnv {
  readonly maxSteps = 8;
  private steps = 0;
  private done = false;
  gradeValue: TestGrade | undefined;
  readonly aborts: TerminationReason[] = [];

  constructor(
    readonly task: TaskEntry,
    readonly sandbox: TestSandbox,
    private readonly script: Script,
  ) {}

  get grade(): TestGrade | undefined {
    return this.gradeValue;
  }

  reset(): Promise<Observation> {
    return Promise.resolve(observation(this.task.task_id, 0, false));
  }

  async step(input: Action | ProtocolError): Promise<StepOutcome> {
    if (this.done) throw new Error('the episode is over');
    const n = this.steps + 1;
    if (this.script.envHangsAt !== undefined && n >= this.script.envHangsAt) await new Promise(() => undefined);
    if (this.script.stepDelayMs) await sleep(this.script.stepDelayMs);
    if (this.script.envThrowsAt === n) throw this.script.envThrows ?? new Error(`env failed at step ${n}`);
    this.steps = n;
    const submit = 'type' in input && input.type === 'submit';
    const resolved = this.script.resolved ?? true;
    const last = submit ? submitResult(resolved, this.script.notGradable, this.script.suspectedHacks) : ({ kind: 'noop' } as const);
    if (submit) {
      this.done = true;
      if (last.kind === 'submit') this.gradeValue = last.grade;
      this.sandbox.patch = '--- a\n+++ b\n';
    }
    return {
      observation: observation(this.task.task_id, n, this.done, last),
      reward: submit && resolved ? 1 : (this.script.stepReward ?? 0),
      done: this.done,
      ...(submit ? { terminationReason: 'submitted' as const } : {}),
      timings: { env_ms: 5, task_commands_ms: submit ? 3 : 0 },
    };
  }

  abort(reason: TerminationReason): Promise<StepOutcome> {
    this.aborts.push(reason);
    this.done = true;
    return Promise.resolve({
      observation: observation(this.task.task_id, this.steps, true, { kind: 'error', error: { code: reason, message: reason } }),
      reward: -0.5,
      done: true,
      terminationReason: reason,
      timings: { env_ms: 1, task_commands_ms: 0 },
    });
  }

  patch(): Promise<string> {
    return this.sandbox.diff();
  }
}

export class TestAgent implements Agent {
  readonly name = 'scripted';
  private n = 0;
  readonly signals: AbortSignal[] = [];

  constructor(private readonly script: Script) {}

  async act(_observation: Observation, signal: AbortSignal): Promise<AgentDecision> {
    this.signals.push(signal);
    this.n += 1;
    if (this.script.agentHangsAt !== undefined && this.n >= this.script.agentHangsAt) await new Promise(() => undefined);
    if (this.script.agentDelayMs) await sleep(this.script.agentDelayMs);
    if (this.script.agentThrowsAt === this.n) throw new Error(`agent failed at step ${this.n}`);
    return this.n > (this.script.steps ?? 2) ? { action: { type: 'submit' } } : { action: { type: 'noop' } };
  }
}

export function envOptions(script: Script): EnvOptions {
  return {
    limits: { maxSteps: 8, repoOpLimit: null, stepTimeoutMs: 60_000, episodeTimeoutMs: script.episodeTimeoutMs ?? 60_000, testTimeoutMs: 60_000 },
    rewards: { reward_scale: 1, failure_penalty: 0, step_penalty: 0, timeout_penalty: 0.5 },
    memoryLimits: { nodes: 10, edges: 10, note_tokens: 10 },
    guard: { maxEdits: 1, maxLinesPerEdit: 1, maxCandidates: 1, requireFocusWindows: true },
  };
}

export interface Doubles {
  readonly deps: EpisodeDeps;
  readonly occupancy: Occupancy;
  readonly envs: TestEnv[];
  readonly sandboxes: TestSandbox[];
  /** How many sandbox opens have begun, finished or not. */
  readonly opensBegun: () => number;
}

/** Deps made of the doubles; `scriptFor` picks each task's script. */
export function testDeps(scriptFor: (taskId: string) => Script = () => ({})): Doubles {
  const occupancy = new Occupancy();
  const envs: TestEnv[] = [];
  const sandboxes: TestSandbox[] = [];
  let opensBegun = 0;
  const deps: EpisodeDeps = {
    openSandbox: async (spec: EpisodeSpec) => {
      opensBegun += 1;
      const script = scriptFor(spec.task.task_id);
      await sleep(script.openDelayMs ?? 1);
      if (script.openFails !== undefined) throw new Error(script.openFails);
      if (script.openThrows !== undefined) throw script.openThrows;
      const choice: BackendChoice | undefined = script.fallback === undefined ? undefined : { requested: 'auto', backend: 'local', fallback: script.fallback };
      const box = new TestSandbox(spec.episodeId, { run: 'test', task: spec.task.task_id } as SandboxSpec, occupancy, choice);
      sandboxes.push(box);
      return box;
    },
    envOptions: (task) => envOptions(scriptFor(task.task_id)),
    openEnv: (task, sandbox) => {
      const env = new TestEnv(task, sandbox as TestSandbox, scriptFor(task.task_id));
      envs.push(env);
      return Promise.resolve(env);
    },
    makeAgent: (task) => new TestAgent(scriptFor(task.task_id)),
  };
  return { deps, occupancy, envs, sandboxes, opensBegun: () => opensBegun };
}
