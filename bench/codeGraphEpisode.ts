/**
 * An episode on a real repository's graph for the code-graph figure: the graph of the Python
 * standard library (the largest repository the bench builds, `graphFigures.ts`), a task whose gold
 * patch changes one method, and a trajectory an agent exploring it could have written, made with
 * the graph's own operations: hints from localising the issue, expansions two hops out from what it
 * has seen (the graph's real candidates), finds, reads of real source, memory commits, a repair of
 * the gold method and a submit. Every line is checked against the trajectory schema. The episode
 * meets several hundred nodes, so the view has to leave some out and lay out the rest.
 */
import { createTwoFilesPatch } from 'diff';
import type { CodeGraph } from '../server/src/graph/index.js';
import type { Candidate, GraphEdge, GraphNode } from '../server/src/protocol/graph.js';
import { maxRecordedGraphEdges, trajectoryLineSchema, type TrajectoryLine } from '../server/src/protocol/runs.js';

export interface BenchEpisode {
  readonly trajectory: string;
  readonly goldPatch: string;
  readonly taskId: string;
  readonly steps: number;
  /** Distinct nodes its observations name. */
  readonly nodesMet: number;
}

const taskId = 'stdlib-json-decode';
/** The gold method; any method of the corpus serves, this one is in every CPython 3 library. */
const goldId = 'method:json/decoder.py#JSONDecoder.raw_decode';

function snippet(graph: CodeGraph, node: GraphNode): { node_id: string; path: string; start: number; end: number; text: string } {
  const lines = (graph.fileText(node.path) ?? '').split('\n');
  const end = Math.min(node.span.end, node.span.start + 60);
  return { node_id: node.id, path: node.path, start: node.span.start, end, text: lines.slice(node.span.start - 1, end).join('\n') };
}

/** The gold patch: one line of the gold method changed, as a unified diff against the library's file. */
function goldPatchOf(graph: CodeGraph, gold: GraphNode): string {
  const before = graph.fileText(gold.path) ?? '';
  const lines = before.split('\n');
  const target = lines.findIndex((l, i) => i >= gold.span.start && i < gold.span.end && l.includes('return'));
  if (target < 0) throw new Error(`${gold.id} has no return line to change`);
  const after = [...lines.slice(0, target), lines[target]?.replace('return', 'return  ') ?? '', ...lines.slice(target + 1)].join('\n');
  return createTwoFilesPatch(`a/${gold.path}`, `b/${gold.path}`, before, after, '', '', { context: 3 })
    .replace(/^=+\n/m, '')
    .replace(/^Index: .*\n/m, '');
}

export function benchEpisode(graph: CodeGraph, template: readonly TrajectoryLine[], taskFile: string): BenchEpisode {
  const gold = graph.node(goldId);
  if (gold === undefined) throw new Error(`the corpus has no ${goldId}`);
  const start = structuredClone(template.find((l) => l.type === 'start'));
  const stepTemplate = template.find((l) => l.type === 'step');
  const end = structuredClone(template.find((l) => l.type === 'end'));
  if (start?.type !== 'start' || stepTemplate?.type !== 'step' || end?.type !== 'end')
    throw new Error('the template trajectory lacks a start, step or end line');
  // The issue names what a user sees, not the method to fix, so the hints start near the gold and the expansions close in.
  const issue = {
    title: 'json.loads accepts trailing garbage after a document',
    body: '`json.loads("{} x")` should raise `JSONDecodeError: Extra data`, as the documentation of json.loads says, but the decoder stops after the document.',
  };
  const hints = graph.localise({ title: issue.title, body: issue.body }).nodeIds.slice(0, 10);
  start.task_id = taskId;
  start.episode_id = taskId;
  start.task_file = { path: taskFile, line: 1 };
  start.max_steps = 60;
  start.observation = { ...start.observation, task_id: taskId, issue, hints, max_steps: 60, memory: { ...start.observation.memory, nodes: [] } };
  const lines: TrajectoryLine[] = [start];
  const met = new Set<string>(hints);
  const memory: Array<{ id: string; kind: string; path: string; span: GraphNode['span'] }> = [];
  let frontier = [...hints];
  let stepNo = 0;
  const push = (action: unknown, last: unknown): void => {
    stepNo++;
    const step = structuredClone(stepTemplate);
    const line = {
      ...step,
      step: stepNo,
      action,
      observation: {
        ...step.observation,
        task_id: taskId,
        step: stepNo,
        max_steps: 60,
        issue,
        hints,
        last,
        memory: { ...step.observation.memory, nodes: [...memory] },
      },
      reward: 0,
      done: false,
    };
    delete (line as { termination_reason?: string }).termination_reason;
    lines.push(trajectoryLineSchema.parse(line));
  };
  // Twelve rounds of expand, read and commit, each from the best of the last round's candidates not yet expanded.
  const expanded = new Set<string>();
  for (let round = 0; round < 12; round++) {
    const from = frontier.filter((id) => !expanded.has(id)).slice(0, 3);
    if (from.length === 0) break;
    from.forEach((id) => expanded.add(id));
    const candidates: Candidate[] = graph.expand(from, { hops: 2, perAnchor: 20, total: 40, perDirectory: 8, known: met });
    candidates.forEach((c) => met.add(c.id));
    push({ type: 'explore', op: 'expand', anchors: [], nodes: from, hop: 2, limit: 20 }, { kind: 'expand', candidates, unmatched: [] });
    const toRead = candidates.filter((c) => c.kind !== 'file').slice(0, 3);
    push(
      { type: 'explore', op: 'read', anchors: [], nodes: toRead.map((c) => c.id), hop: 1, limit: 3 },
      { kind: 'read', snippets: toRead.map((c) => snippet(graph, c)), missing: [] },
    );
    for (const c of candidates.slice(0, 5)) if (!memory.some((m) => m.id === c.id)) memory.push({ id: c.id, kind: c.kind, path: c.path, span: c.span });
    push(
      { type: 'memory', target: 'explore', scope: 'session', intent: 'commit' },
      {
        kind: 'memory',
        ok: true,
        intent: 'commit',
        target: 'explore',
        added: { nodes: 5, edges: 0, notes: 0 },
        removed: { nodes: 0, edges: 0, notes: 0 },
        size: { nodes: memory.length, edges: 0, note_tokens: 0 },
        limits: { nodes: 200, edges: 400, note_tokens: 2000 },
      },
    );
    frontier = [...candidates.map((c) => c.id), ...frontier];
  }
  const found = graph.find({ kind: 'symbol', text: 'raw_decode' }, 10);
  found.forEach((n) => met.add(n.id));
  push(
    { type: 'explore', op: 'find', anchors: [{ kind: 'symbol', text: 'raw_decode' }], nodes: [], hop: 1, limit: 10 },
    { kind: 'find', nodes: found, unmatched: [] },
  );
  push({ type: 'explore', op: 'read', anchors: [], nodes: [gold.id], hop: 1, limit: 1 }, { kind: 'read', snippets: [snippet(graph, gold)], missing: [] });
  const goldPatch = goldPatchOf(graph, gold);
  push(
    { type: 'repair', apply: true, plan: 'Check for extra data after the document.', focus_ids: [gold.id], patches: [{ diff: goldPatch }] },
    { kind: 'repair', apply: true, applied: true, kept: 0, candidates: [{ index: 0, diff: goldPatch }], diff: goldPatch, source: 'action' },
  );
  // The end line records the graph's edges at the nodes the episode was shown, as the environment writes them.
  const graphEdges = new Map<string, { src: string; dst: string; kind: GraphEdge['kind'] }>();
  for (const id of [...met, ...memory.map((m) => m.id)])
    for (const e of graph.edgesOf(id))
      if (graphEdges.size < maxRecordedGraphEdges) graphEdges.set(`${e.kind}\n${e.src}\n${e.dst}`, { src: e.src, dst: e.dst, kind: e.kind });
  lines.push(
    trajectoryLineSchema.parse({ ...end, episode_id: taskId, task_id: taskId, steps: stepNo, patch: goldPatch, graph_edges: [...graphEdges.values()] }),
  );
  return { trajectory: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, goldPatch, taskId, steps: stepNo, nodesMet: met.size };
}

/** The task entry and the predictions file beside it, as `gp dataset prepare` writes them. */
export function benchTask(goldPatch: string, repository: string): { tasks: string; predictions: string } {
  const task = {
    task_id: taskId,
    sandbox: { local_repo: repository, workdir: '/testbed', backend: 'local', test_command: 'python -m pytest -rA' },
    max_steps: 60,
    issue: { id: taskId, title: 'json.loads accepts trailing garbage', body: '' },
  };
  return {
    tasks: `${JSON.stringify(task)}\n`,
    predictions: `${JSON.stringify({ instance_id: taskId, model_name_or_path: 'gold', model_patch: goldPatch })}\n`,
  };
}
