/**
 * The planner environment's public contract: its settings, the patch model it calls for repairs,
 * and what one step returns. `openPlannerEnv` (in `plannerEnv.ts`) returns a `PlannerEnv`; rollouts
 * and the env service use nothing else.
 */
import type { Action, PatchCandidate, ProtocolError } from '../protocol/actions.js';
import type { GraphEdge, GraphNode } from '../protocol/graph.js';
import type { MemorySize, Observation, Preimage, TerminationReason } from '../protocol/observation.js';
import type { TestGrade } from '../protocol/testReport.js';
import type { Sandbox } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import type { GraderFacts, GraderTaskSurface, TestRun } from '../testing/index.js';
import type { CodeGraph, SemanticIndex } from '../graph/index.js';

/** Penalties are non-negative magnitudes that are subtracted (ARCHITECTURE.md §4.4). */
export interface RewardSettings {
  reward_scale: number;
  failure_penalty: number;
  step_penalty: number;
  timeout_penalty: number;
}

export interface EnvLimits {
  /** The effective limit, min(task.max_steps, env.max_steps) (ARCHITECTURE.md §4.5). */
  maxSteps: number;
  /** Most repository operations (explore, repair, submit); null for none. */
  repoOpLimit: number | null;
  /** Time one step may take in the environment. */
  stepTimeoutMs: number;
  /** Time the whole episode may take, agent included. */
  episodeTimeoutMs: number;
  /** Time one run of the task's tests may take. */
  testTimeoutMs: number;
}

export interface GuardSettings {
  /** Most edits in one candidate. */
  maxEdits: number;
  /** Most lines one edit may replace. */
  maxLinesPerEdit: number;
  /** Most candidates one repair may try. */
  maxCandidates: number;
  /** Whether edits must fall inside the windows of the plan's focus nodes. */
  requireFocusWindows: boolean;
  /**
   * Whether a candidate may change a file the grader depends on (guard.ts `protectedReason`):
   * `refuse` turns it away with the file named, `allow` lets it through. Refuse when absent.
   */
  protectedPaths?: 'refuse' | 'penalise' | 'allow';
  /** With `penalise`: subtracted from the submit's reward when the graded patch changes a protected file. */
  protectedPenalty?: number;
  /**
   * The task's side of the grader-facing surface (testing/taskTestFiles.ts: its test files of every
   * id style, its test patch's and test command's files, its pythonpath); none when absent.
   */
  surface?: GraderTaskSurface;
  /**
   * What the task's environment and repository say (testing/graderFacts.ts), added when the
   * environment opens; absent, the rule uses the shipped standard-library list and says so.
   */
  facts?: GraderFacts;
}

/** What the patch model (CGM) is given for one repair. */
export interface PatchRequest {
  issue: { title: string; body: string };
  plan: string;
  /** The focus nodes with their windows; edits must stay inside them. */
  focus: Array<{ node: GraphNode; start: number; end: number; text: string }>;
  /** Full text of the files behind the focus nodes (at most a few, each capped). */
  files: Record<string, string>;
  /** Working-memory notes, oldest first. */
  notes: string[];
  constraints: { max_edits: number; one_file: boolean };
}

/** The patch model: CGM over HTTP, CGM through a chat endpoint, or anything else that proposes edits. */
export interface PatchModel {
  readonly name: string;
  generate(request: PatchRequest, signal: AbortSignal): Promise<PatchCandidate[]>;
}

export interface EnvOptions {
  limits: EnvLimits;
  rewards: RewardSettings;
  memoryLimits: MemorySize;
  guard: GuardSettings;
  /** Called for repairs without ready patches; such repairs fail with `no-patch-model` when absent. */
  patchModel?: PatchModel;
  /**
   * Records each submit's test run (in a rollout: the run directory's `test_runs.jsonl`, log and
   * report, through runs/testRuns.ts); nothing is recorded when absent. A callback, because the
   * environment does not know where runs are kept (ARCHITECTURE.md's folder table).
   */
  recordTestRun?: (run: TestRun) => Promise<unknown>;
  /**
   * Keeps a file as it was before a candidate patch (`undefined`: it did not exist) and says how it
   * was kept; in a rollout, in the run directory through runs/preimageStore.ts. Candidates carry no
   * pre-images when absent.
   */
  recordPreimage?: (path: string, content: Buffer | undefined) => Promise<Preimage>;
  /**
   * The semantic retriever for a graph (launch/semanticSearch.ts), fused into the issue's hints;
   * BM25 and anchors alone when absent or when it answers undefined.
   */
  semantic?: (graph: CodeGraph) => Promise<SemanticIndex | undefined>;
}

export interface StepOutcome {
  observation: Observation;
  reward: number;
  done: boolean;
  terminationReason?: TerminationReason;
  timings: { env_ms: number; task_commands_ms: number };
}

export interface PlannerEnv {
  readonly task: TaskEntry;
  readonly sandbox: Sandbox;
  readonly maxSteps: number;
  /** The grade of the last test run of a submit, once there was one. */
  readonly grade: TestGrade | undefined;
  reset(): Promise<Observation>;
  /** Executes an action, or answers a reply that failed to parse with an observation naming the error. */
  step(input: Action | ProtocolError): Promise<StepOutcome>;
  /** Ends the episode from outside (agent timeout, Ctrl-C), with the limit's penalties where they apply. */
  abort(reason: TerminationReason): Promise<StepOutcome>;
  /** The repository's diff against the base commit. */
  patch(): Promise<string>;
  /**
   * Waits for the records the last step is still writing (a submit's test run), which the step's
   * outcome did not wait for; rejects with their write's error. Whoever records the step calls it
   * before the step's trajectory line, so no line names a record that a crash could leave unwritten.
   */
  settled?(): Promise<void>;
  /**
   * The code graph's edges at the nodes this episode's observations named (hints, results, working
   * memory), each once, at most `cap` of them; `truncated` when more were left out. The trajectory's
   * end line keeps them, so hops can be counted after the sandbox is gone.
   */
  graphEdges?(cap: number): { readonly edges: GraphEdge[]; readonly truncated: boolean };
}
