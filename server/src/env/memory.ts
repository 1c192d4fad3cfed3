/**
 * Working memory (docs/original-system.md#e4-working-memory, with budgets a normal expand fits in): the working subgraph the planner
 * builds by committing explore results, and notes of observations it wants to keep. Every commit
 * is a record a later delete can undo by its tag. A commit that would pass a budget is refused as a
 * whole and says which budget.
 */
import type { ActionResult, MemoryNote, MemorySize, StepError } from '../protocol/observation.js';
import type { GraphEdge, GraphNode } from '../protocol/graph.js';

type MemoryResult = Extract<ActionResult, { kind: 'memory' }>;
type Scope = 'turn' | 'session';

interface CommitRecord {
  tag: string;
  scope: Scope;
  nodeIds: string[];
  edgeKeys: string[];
}

/** What an explore step left for a commit: the nodes it found or proposed. */
export interface ExploreFindings {
  nodes: readonly GraphNode[];
}

/** Rough token count: four characters per token, at least one. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function lastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i] as T)) return i;
  return -1;
}

const edgeKey = (e: GraphEdge) => `${e.src}\u0000${e.dst}\u0000${e.kind}`;

export class WorkingMemory {
  private readonly nodeMap = new Map<string, GraphNode>();
  private readonly edgeMap = new Map<string, GraphEdge>();
  private readonly noteList: Array<MemoryNote & { tokens: number }> = [];
  private readonly records: CommitRecord[] = [];
  private nextNoteId = 1;
  private commits = 0;

  constructor(
    readonly limits: MemorySize,
    /** Edges of the code graph touching a node, used to bring edges along with committed nodes. */
    private readonly edgesOf: (id: string) => readonly GraphEdge[],
  ) {}

  get size(): MemorySize {
    return { nodes: this.nodeMap.size, edges: this.edgeMap.size, note_tokens: this.noteList.reduce((n, note) => n + note.tokens, 0) };
  }

  nodes(): GraphNode[] {
    return [...this.nodeMap.values()];
  }

  has(id: string): boolean {
    return this.nodeMap.has(id);
  }

  node(id: string): GraphNode | undefined {
    return this.nodeMap.get(id);
  }

  notes(): MemoryNote[] {
    return this.noteList.map(({ id, scope, text }) => ({ id, scope, text }));
  }

  edgeCount(): number {
    return this.edgeMap.size;
  }

  private result(partial: Omit<MemoryResult, 'kind' | 'size' | 'limits'>): MemoryResult {
    return { kind: 'memory', ...partial, size: this.size, limits: this.limits };
  }

  private refused(intent: 'commit' | 'delete', target: 'explore' | 'observation', error: StepError): MemoryResult {
    const zero = { nodes: 0, edges: 0, notes: 0 };
    return this.result({ ok: false, intent, target, added: zero, removed: zero, error });
  }

  private overBudget(projected: MemorySize): Array<keyof MemorySize> {
    return (['nodes', 'edges', 'note_tokens'] as const).filter((k) => projected[k] > this.limits[k]);
  }

  /** Adds the latest explore findings (and the graph edges among memory nodes) to the subgraph. */
  commitExplore(findings: ExploreFindings | undefined, scope: Scope): MemoryResult {
    if (findings === undefined)
      return this.refused('commit', 'explore', { code: 'missing-explore', message: 'nothing explored yet: run explore find or expand first.' });
    if (findings.nodes.length === 0)
      return this.refused('commit', 'explore', { code: 'empty-explore', message: 'the latest explore found nothing to commit.' });
    const fresh = findings.nodes.filter((n) => !this.nodeMap.has(n.id));
    const members = new Set([...this.nodeMap.keys(), ...fresh.map((n) => n.id)]);
    const newEdges = new Map<string, GraphEdge>();
    for (const node of fresh) {
      for (const edge of this.edgesOf(node.id)) {
        const key = edgeKey(edge);
        if (members.has(edge.src) && members.has(edge.dst) && !this.edgeMap.has(key)) newEdges.set(key, edge);
      }
    }
    const top = findings.nodes.slice(0, 3).map((n) => `${n.id} (${n.path}:${n.span.start}-${n.span.end})`);
    const noteText = `Explore committed ${fresh.length} new node(s): ${top.join(', ')}${findings.nodes.length > 3 ? ', …' : ''}`;
    const noteTokens = estimateTokens(noteText);
    const size = this.size;
    const projected = { nodes: size.nodes + fresh.length, edges: size.edges + newEdges.size, note_tokens: size.note_tokens + noteTokens };
    const exceeded = this.overBudget(projected);
    if (exceeded.length > 0) {
      const detail = exceeded.map((k) => `${k} ${projected[k]} > ${this.limits[k]}`).join(', ');
      return this.refused('commit', 'explore', {
        code: 'over-budget',
        message: `the commit would exceed the memory budget (${detail}); delete a record or commit a smaller explore.`,
      });
    }
    for (const node of fresh) this.nodeMap.set(node.id, node);
    for (const [key, edge] of newEdges) this.edgeMap.set(key, edge);
    this.addNote(scope, noteText, noteTokens);
    const tag = `${scope}:${++this.commits}`;
    this.records.push({ tag, scope, nodeIds: fresh.map((n) => n.id), edgeKeys: [...newEdges.keys()] });
    return this.result({
      ok: true,
      intent: 'commit',
      target: 'explore',
      added: { nodes: fresh.length, edges: newEdges.size, notes: 1 },
      removed: { nodes: 0, edges: 0, notes: 0 },
      tag,
    });
  }

  /** Keeps a note of the latest non-explore observation (rendered as one line by the caller). */
  commitObservation(summary: string | undefined, scope: Scope): MemoryResult {
    if (summary === undefined)
      return this.refused('commit', 'observation', { code: 'missing-observation', message: 'there is no observation to keep yet: repair or submit first.' });
    if (summary.trim() === '')
      return this.refused('commit', 'observation', { code: 'empty-observation', message: 'the latest observation has nothing to keep.' });
    const tokens = estimateTokens(summary);
    const projected = { ...this.size, note_tokens: this.size.note_tokens + tokens };
    if (this.overBudget(projected).length > 0) {
      return this.refused('commit', 'observation', {
        code: 'over-budget',
        message: `the note would exceed the note budget (${projected.note_tokens} > ${this.limits.note_tokens} tokens); delete a note first.`,
      });
    }
    const id = this.addNote(scope, summary, tokens);
    return this.result({
      ok: true,
      intent: 'commit',
      target: 'observation',
      added: { nodes: 0, edges: 0, notes: 1 },
      removed: { nodes: 0, edges: 0, notes: 0 },
      tag: `note:${id}`,
    });
  }

  /** Removes what a commit record added: `selector` is its tag, or `latest` / absent for the last one of the scope. */
  deleteExplore(selector: string | undefined, scope: Scope): MemoryResult {
    const index =
      selector === undefined || selector === 'latest' ? lastIndex(this.records, (r) => r.scope === scope) : this.records.findIndex((r) => r.tag === selector);
    const record = this.records[index];
    if (record === undefined) {
      const message =
        selector === undefined || selector === 'latest'
          ? `no explore commit in scope ${scope} to delete.`
          : `no commit tagged ${selector}; tags look like ${scope}:1.`;
      return this.refused('delete', 'explore', { code: 'nothing-to-delete', message });
    }
    this.records.splice(index, 1);
    let edges = 0;
    for (const id of record.nodeIds) this.nodeMap.delete(id);
    for (const [key, edge] of this.edgeMap) {
      if (record.edgeKeys.includes(key) || !this.nodeMap.has(edge.src) || !this.nodeMap.has(edge.dst)) {
        this.edgeMap.delete(key);
        edges += 1;
      }
    }
    return this.result({
      ok: true,
      intent: 'delete',
      target: 'explore',
      added: { nodes: 0, edges: 0, notes: 0 },
      removed: { nodes: record.nodeIds.length, edges, notes: 0 },
      tag: record.tag,
    });
  }

  /** Removes a note: `selector` is its number (or `note:N`), or `latest` / absent for the last one of the scope. */
  deleteObservation(selector: string | undefined, scope: Scope): MemoryResult {
    const wanted = selector?.replace(/^note:/, '');
    const index =
      wanted === undefined || wanted === 'latest'
        ? lastIndex(this.noteList, (n) => n.scope === scope)
        : this.noteList.findIndex((n) => String(n.id) === wanted);
    if (index < 0)
      return this.refused('delete', 'observation', {
        code: 'nothing-to-delete',
        message: `no note ${wanted ?? 'in scope ' + scope}; notes are numbered as the observation lists them.`,
      });
    const [note] = this.noteList.splice(index, 1);
    return this.result({
      ok: true,
      intent: 'delete',
      target: 'observation',
      added: { nodes: 0, edges: 0, notes: 0 },
      removed: { nodes: 0, edges: 0, notes: 1 },
      tag: `note:${note?.id ?? ''}`,
    });
  }

  /** Drops nodes the graph no longer has (after a repair re-parsed files) and refreshes the others. */
  refresh(lookup: (id: string) => GraphNode | undefined): void {
    for (const id of [...this.nodeMap.keys()]) {
      const node = lookup(id);
      if (node === undefined) this.nodeMap.delete(id);
      else this.nodeMap.set(id, node);
    }
  }

  private addNote(scope: Scope, text: string, tokens: number): number {
    const id = this.nextNoteId++;
    this.noteList.push({ id, scope, text, tokens });
    return id;
  }
}
