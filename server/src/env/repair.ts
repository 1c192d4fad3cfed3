/**
 * The repair action: candidates (the action's own patches, or the patch model's) are turned into
 * unified diffs, guarded, and then either returned (`apply: false`, the repository untouched) or
 * tried in order: apply, run the task's tests, keep the first candidate whose tests pass, and put
 * the repository back as it was after each one that fails (the original's "apply in temp then commit", docs/original-system.md#d4-validating-and-applying-a-patch,
 * done inside the sandbox instead of on host paths). A Harbor task's verifier is never run here:
 * its first candidate that applies is kept.
 */
import type { PatchCandidate, RepairAction } from '../protocol/actions.js';
import type { ActionResult, CandidateOutcome, Preimage, StepError } from '../protocol/observation.js';
import type { GraphNode } from '../protocol/graph.js';
import type { Sandbox } from '../sandbox/index.js';
import { patchPaths } from '../sandbox/index.js';
import type { TaskEntry } from '../tasks/index.js';
import { runTaskTests } from '../testing/index.js';
import type { CodeGraph } from '../graph/index.js';
import { editsToDiff } from './editsToDiff.js';
import { guardDiff, guardEdits, type Window } from './guard.js';
import type { WorkingMemory } from './memory.js';
import { summariseTests } from './testSummary.js';
import type { EnvOptions, PatchRequest } from './types.js';
import { errorMessage } from '../util/errors.js';

type RepairResult = Extract<ActionResult, { kind: 'repair' }>;

export interface RepairContext {
  sandbox: Sandbox;
  task: TaskEntry;
  graph: CodeGraph;
  memory: WorkingMemory;
  options: EnvOptions;
  issue: { title: string; body: string };
  signal: AbortSignal;
  /** When the step must end (epoch ms). */
  deadline: number;
  /**
   * The repository's diff against its base as the previous step left it, when the environment
   * knows it: a diff costs a sandbox round trip plus git's work, and a repair needs the state
   * before its candidates (to restore it) and after them (for the observation).
   */
  knownDiff?: string | undefined;
}

export interface RepairOutcome {
  result: RepairResult;
  taskCommandsMs: number;
  /** Files a kept candidate changed, for the graph to re-parse. */
  changed: string[];
  timedOut: boolean;
}

const maxFiles = 4;
const maxFileChars = 40_000;

/** The focus nodes: the action's ids, else the working memory's functions and methods (latest five). */
function focusNodes(repairContext: RepairContext, action: RepairAction): GraphNode[] {
  const named = action.focus_ids.map((id) => repairContext.graph.node(id)).filter((n): n is GraphNode => n !== undefined);
  if (named.length > 0 || action.focus_ids.length > 0) return named;
  return repairContext.memory
    .nodes()
    .filter((n) => n.kind === 'function' || n.kind === 'method')
    .slice(-5);
}

function windowsOf(nodes: readonly GraphNode[]): Window[] {
  return nodes.map((n) => ({ path: n.path, start: n.span.start, end: n.span.end }));
}

function patchRequest(repairContext: RepairContext, action: RepairAction, focus: readonly GraphNode[]): PatchRequest {
  const files: Record<string, string> = {};
  for (const node of focus) {
    if (Object.keys(files).length >= maxFiles || files[node.path] !== undefined) continue;
    const text = repairContext.graph.fileText(node.path);
    if (text !== undefined) files[node.path] = text.length > maxFileChars ? `${text.slice(0, maxFileChars)}...` : text;
  }
  return {
    issue: repairContext.issue,
    plan: action.plan,
    focus: focus.map((node) => {
      const lines = (repairContext.graph.fileText(node.path) ?? '').split('\n');
      return { node, start: node.span.start, end: node.span.end, text: lines.slice(node.span.start - 1, node.span.end).join('\n') };
    }),
    files,
    notes: repairContext.memory.notes().map((n) => n.text),
    constraints: { max_edits: repairContext.options.guard.maxEdits, one_file: false },
  };
}

async function candidatesFor(repairContext: RepairContext, action: RepairAction, focus: readonly GraphNode[]): Promise<PatchCandidate[] | StepError> {
  if (action.patches !== undefined) return action.patches;
  const model = repairContext.options.patchModel;
  if (model === undefined)
    return { code: 'no-patch-model', message: 'no patch model is configured (set backends.cgm_endpoint), and the repair carries no patches.' };
  if (focus.length === 0)
    return { code: 'no-focus', message: 'name the nodes to change in focus_ids (ids from the observations), or commit them to memory first.' };
  try {
    const found = await model.generate(patchRequest(repairContext, action, focus), repairContext.signal);
    return found.length > 0 ? found : { code: 'cgm-empty', message: `${model.name} returned no candidate.` };
  } catch (error) {
    return { code: 'patch-model-failed', message: `${model.name}: ${errorMessage(error)}` };
  }
}

/** A candidate as a guarded diff, or why it was refused. */
async function toDiff(
  repairContext: RepairContext,
  candidate: PatchCandidate,
  windows: readonly Window[],
): Promise<{ diff: string } | { error: StepError; diff: string }> {
  if ('diff' in candidate) {
    const refused = guardDiff(candidate.diff, windows, repairContext.options.guard);
    return refused ? { error: refused, diff: candidate.diff } : { diff: candidate.diff };
  }
  const refused = guardEdits(candidate.edits, windows, repairContext.options.guard);
  if (refused) return { error: refused, diff: '' };
  const converted = await editsToDiff(
    candidate.edits,
    async (path) => repairContext.graph.fileText(path) ?? (await readOrUndefined(repairContext.sandbox, path)),
  );
  return converted.ok ? { diff: converted.diff } : { error: converted.error, diff: '' };
}

async function readOrUndefined(sandbox: Sandbox, path: string): Promise<string | undefined> {
  try {
    return (await sandbox.readFile(path)).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Keeps each file the diff touches as it is now (before the candidate), so the candidate can be
 * shown as a whole-file diff later. A file that cannot be kept is recorded with the reason; it
 * costs the viewer that file's diff, never the step.
 */
async function recordPreimages(repairContext: RepairContext, diff: string, read: Map<string, Buffer | undefined>): Promise<Preimage[] | undefined> {
  const record = repairContext.options.recordPreimage;
  if (record === undefined) return undefined;
  const preimages: Preimage[] = [];
  for (const path of patchPaths(diff).paths) {
    const content = read.has(path) ? read.get(path) : await readBytesOrUndefined(repairContext.sandbox, path);
    read.set(path, content);
    try {
      preimages.push(await record(path, content));
    } catch (error) {
      preimages.push({ path, sha256: null, skipped: `it could not be kept (${errorMessage(error)})` });
    }
  }
  return preimages;
}

async function readBytesOrUndefined(sandbox: Sandbox, path: string): Promise<Buffer | undefined> {
  try {
    return await sandbox.readFile(path);
  } catch {
    return undefined;
  }
}

async function restore(sandbox: Sandbox, before: string): Promise<void> {
  await sandbox.reset();
  if (before !== '') {
    const back = await sandbox.applyPatch(before);
    if (!back.applied) throw new Error(`could not restore the repository after a failed candidate: ${back.message}`);
  }
}

export async function repair(repairContext: RepairContext, action: RepairAction): Promise<RepairOutcome> {
  const focus = focusNodes(repairContext, action);
  const found = await candidatesFor(repairContext, action, focus);
  const source = action.patches === undefined ? 'patch-model' : 'action';
  const base = { kind: 'repair' as const, apply: action.apply, source: source as RepairResult['source'] };
  const current = async () => repairContext.knownDiff ?? (await repairContext.sandbox.diff());
  if (!Array.isArray(found))
    return { result: { ...base, applied: false, candidates: [], diff: await current(), error: found }, taskCommandsMs: 0, changed: [], timedOut: false };
  const windows = windowsOf(focus);
  const outcomes: CandidateOutcome[] = [];
  const before = action.apply ? await current() : '';
  // Every candidate starts from the same files (a failed one is undone before the next), so each
  // file's pre-image is read from the sandbox once per step.
  const preimageReads = new Map<string, Buffer | undefined>();
  let taskCommandsMs = 0;
  let kept: number | undefined;
  let changed: string[] = [];
  let timedOut = false;
  let stopped: StepError | undefined;
  // Every candidate within the limit is recorded with its diff, the ones after the kept one and
  // after a timeout as not tried: the result numbers the candidates as the action listed them, and
  // a person reads each one's removed lines as well as its added ones (issue 37).
  for (const [index, candidate] of found.slice(0, repairContext.options.guard.maxCandidates).entries()) {
    const summary = candidate.summary;
    const converted = await toDiff(repairContext, candidate, windows);
    const outcome: CandidateOutcome = { index, diff: converted.diff, ...(summary === undefined ? {} : { summary }) };
    outcomes.push(outcome);
    if ('error' in converted) {
      outcome.error = converted.error;
      continue;
    }
    const preimages = await recordPreimages(repairContext, converted.diff, preimageReads);
    if (preimages !== undefined) outcome.preimages = preimages;
    if (!action.apply || kept !== undefined) continue;
    const remaining = repairContext.deadline - Date.now();
    if (stopped === undefined && (remaining <= 0 || repairContext.signal.aborted)) {
      timedOut = remaining <= 0;
      stopped = { code: timedOut ? 'step-timeout' : 'aborted', message: 'not tried: the step ran out of time.' };
    }
    if (stopped !== undefined) {
      outcome.error = stopped;
      continue;
    }
    const applied = await repairContext.sandbox.applyPatch(converted.diff);
    if (!applied.applied) {
      const rejected = applied.rejected.map((r) => `${r.path}${r.line === undefined ? '' : `:${r.line}`}`).join(', ');
      outcome.error = {
        code: applied.refused === undefined ? 'apply-failed' : 'path-outside-repo',
        message: `${applied.refused ?? applied.message}${rejected ? ` (${rejected})` : ''}`,
      };
      continue;
    }
    // A Harbor task's verifier is hidden from the agent and runs once, at submit, as in Harbor
    // (docs/field-formats.md, "Running a Harbor task"): the first candidate that applies is kept.
    if (repairContext.task.verifier !== undefined) {
      kept = index;
      changed = patchPaths(converted.diff).paths;
      continue;
    }
    // The candidate is the patch under evaluation; grading reads only that there is one, so the
    // sandbox is not asked for a diff it would take a round trip to compute.
    const run = await runTaskTests(repairContext.sandbox, repairContext.task, {
      timeoutMs: Math.min(repairContext.options.limits.testTimeoutMs, remaining),
      patch: converted.diff,
    });
    taskCommandsMs += run.record.durationMs;
    outcome.tests = summariseTests(run);
    if (outcome.tests.passed) {
      kept = index;
      changed = patchPaths(converted.diff).paths;
      continue;
    }
    await restore(repairContext.sandbox, before);
  }
  // Without a kept candidate the repository is as the step found it: untouched, or restored to
  // `before` after each candidate that failed (restore throws when it cannot put it back).
  const diff = kept !== undefined ? await repairContext.sandbox.diff() : action.apply ? before : await current();
  const result: RepairResult = {
    ...base,
    applied: kept !== undefined,
    proposed: found.length,
    candidates: outcomes,
    diff,
    ...(kept === undefined ? {} : { kept }),
  };
  return { result, taskCommandsMs, changed, timedOut };
}
