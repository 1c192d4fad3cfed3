import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkingMemory } from '../../server/src/env/memory.js';
import type { GraphEdge, GraphNode } from '../../server/src/protocol/graph.js';

function node(i: number): GraphNode {
  return { id: `func:pkg/m${i % 4}.py#f${i}`, kind: 'function', name: `f${i}`, path: `pkg/m${i % 4}.py`, span: { start: i + 1, end: i + 3 } };
}

const nodes = Array.from({ length: 60 }, (_, i) => node(i));
// A chain of calls f0 → f1 → … so that committed nodes bring their edges along.
const edges: GraphEdge[] = nodes.slice(1).map((n, i) => ({ src: (nodes[i] as GraphNode).id, dst: n.id, kind: 'calls' }));
const edgesOf = (id: string) => edges.filter((e) => e.src === id || e.dst === id);
const limits = { nodes: 200, edges: 1000, note_tokens: 2000 };

test('a normal expand (20 candidates) fits the default budgets several times over', () => {
  const memory = new WorkingMemory(limits, edgesOf);
  for (let round = 0; round < 3; round++) {
    const result = memory.commitExplore({ nodes: nodes.slice(round * 20, round * 20 + 20) }, 'turn');
    assert.equal(result.ok, true, JSON.stringify(result.error));
  }
  assert.equal(memory.size.nodes, 60);
  assert.equal(memory.edgeCount(), 59);
});

test('a commit over the node budget is refused whole and names the budget', () => {
  const memory = new WorkingMemory({ ...limits, nodes: 25 }, edgesOf);
  assert.equal(memory.commitExplore({ nodes: nodes.slice(0, 20) }, 'turn').ok, true);
  const refused = memory.commitExplore({ nodes: nodes.slice(20, 40) }, 'turn');
  assert.equal(refused.ok, false);
  assert.equal(refused.error?.code, 'over-budget');
  assert.match(refused.error?.message ?? '', /nodes 40 > 25/);
  assert.equal(memory.size.nodes, 20, 'nothing of the refused commit was kept');
});

test('the note budget refuses a note that does not fit', () => {
  const memory = new WorkingMemory({ ...limits, note_tokens: 30 }, edgesOf);
  assert.equal(memory.commitObservation('x'.repeat(100), 'turn').ok, true);
  const refused = memory.commitObservation('y'.repeat(40), 'turn');
  assert.equal(refused.error?.code, 'over-budget');
});

test('delete by tag removes what that commit added, and its edges', () => {
  const memory = new WorkingMemory(limits, edgesOf);
  const first = memory.commitExplore({ nodes: nodes.slice(0, 5) }, 'session');
  memory.commitExplore({ nodes: nodes.slice(5, 10) }, 'session');
  assert.equal(memory.size.nodes, 10);
  const removed = memory.deleteExplore(first.tag, 'session');
  assert.equal(removed.ok, true);
  assert.equal(removed.removed.nodes, 5);
  assert.equal(memory.size.nodes, 5);
  assert.ok(memory.nodes().every((n) => !nodes.slice(0, 5).some((m) => m.id === n.id)));
  assert.equal(memory.edgeCount(), 4, 'only the edges among the remaining five');
});

test('errors: nothing explored, empty explore, nothing to delete, unknown note', () => {
  const memory = new WorkingMemory(limits, edgesOf);
  assert.equal(memory.commitExplore(undefined, 'turn').error?.code, 'missing-explore');
  assert.equal(memory.commitExplore({ nodes: [] }, 'turn').error?.code, 'empty-explore');
  assert.equal(memory.deleteExplore(undefined, 'turn').error?.code, 'nothing-to-delete');
  assert.equal(memory.deleteExplore('turn:7', 'turn').error?.code, 'nothing-to-delete');
  assert.equal(memory.commitObservation(undefined, 'turn').error?.code, 'missing-observation');
  assert.equal(memory.deleteObservation('3', 'turn').error?.code, 'nothing-to-delete');
});

test('delete observation by note number or latest', () => {
  const memory = new WorkingMemory(limits, edgesOf);
  memory.commitObservation('first', 'turn');
  memory.commitObservation('second', 'turn');
  assert.equal(memory.deleteObservation('1', 'turn').ok, true);
  assert.deepEqual(
    memory.notes().map((n) => n.text),
    ['second'],
  );
  assert.equal(memory.deleteObservation('latest', 'turn').ok, true);
  assert.equal(memory.notes().length, 0);
});

test('re-committing known nodes adds none and costs nothing but the note', () => {
  const memory = new WorkingMemory(limits, edgesOf);
  memory.commitExplore({ nodes: nodes.slice(0, 10) }, 'turn');
  const again = memory.commitExplore({ nodes: nodes.slice(0, 10) }, 'turn');
  assert.equal(again.ok, true);
  assert.equal(again.added.nodes, 0);
  assert.equal(memory.size.nodes, 10);
});
