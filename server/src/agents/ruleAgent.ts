/**
 * The model-free agent (ARCHITECTURE.md §4.9): localise, expand, keep, read, repair by bounded mutation,
 * submit. It is the embedded default and a sanity baseline for RL, and the model agent's fallback.
 * It acts only on observations, like a model would, so whatever it does a planner could do too.
 * When a search finds nothing it moves on (the original crashed: defect L.13, docs/original-system.md#l-defects); when its repair keeps
 * no candidate it reads the next most likely nodes and tries again while steps remain.
 */
import type { Action } from '../protocol/actions.js';
import type { Observation, Snippet } from '../protocol/observation.js';
import type { Agent, AgentDecision, RecordedDecision } from './agent.js';
import { mutationCandidates, type SourceWindow } from './mutations.js';

/** Candidates one repair step may try; the environment's guard may lower it further. */
const candidatesPerRepair = 60;
/** Nodes read per round. */
const readsPerRound = 3;

type Phase = 'locate' | 'expand' | 'commit' | 'read' | 'repair' | 'submit';

interface RankedNode {
  id: string;
  path: string;
  kind: string;
}

function isTestPath(path: string): boolean {
  return /(^|\/)(tests?|testing)\//.test(path) || /(^|\/)test_[^/]*\.py$|_test\.py$/.test(path);
}

function isCode(node: RankedNode): boolean {
  return (node.kind === 'function' || node.kind === 'method') && !isTestPath(node.path);
}

export class RuleAgent implements Agent {
  readonly name = 'rule';
  private phase: Phase = 'locate';
  private ranked: RankedNode[] = [];
  private readonly read = new Set<string>();
  private snippets: Snippet[] = [];
  /** Everything read so far, to follow calls from code already read to the code it calls. */
  private readText = '';

  async act(observation: Observation): Promise<AgentDecision> {
    return { action: this.next(observation) };
  }

  /**
   * Learns from a step another agent (or an earlier run) took, and keeps what that step itself
   * would have changed here: the nodes it read are read, a search moves on to expanding, a submit
   * ends. The results that come back move the phase on as they do after its own steps.
   */
  prime(observation: Observation, recorded: RecordedDecision): void {
    this.learn(observation);
    const action = recorded.action;
    if (action === undefined) return;
    if (action.type === 'submit') this.phase = 'submit';
    if (action.type !== 'explore') return;
    if (action.op === 'find') this.phase = 'expand';
    else if (action.op === 'read') for (const id of action.nodes) this.read.add(id);
    else if (action.op === 'expand' && this.phase === 'locate') {
      this.rank(action.nodes.map((id) => ({ id, path: id.replace(/^\w+:/, '').replace(/#.*$/, ''), kind: kindOfId(id) })));
      this.phase = 'expand';
    }
  }

  private next(obs: Observation): Action {
    const left = obs.max_steps - obs.step;
    this.learn(obs);
    // Keep one step for submit: an episode that ends on a limit scores worse than one that submits.
    if (left <= 1 || this.phase === 'submit') return { type: 'submit', thought: 'Submitting the current state of the repository.' };
    switch (this.phase) {
      case 'locate':
        return this.locate(obs);
      case 'expand':
        return this.expandFrom();
      case 'commit':
        // Keeping the neighbourhood costs a step; with few steps left, a second repair round is worth more.
        if (left <= 5) return this.readNext(left);
        return { type: 'memory', target: 'explore', scope: 'session', intent: 'commit', thought: 'Keep the neighbourhood of the suspects.' };
      case 'read':
        return this.readNext(left);
      case 'repair':
        return this.repair(obs);
    }
  }

  /** Moves the state machine on from the last result. */
  private learn(obs: Observation): void {
    const last = obs.last;
    if (last === undefined) return;
    switch (last.kind) {
      case 'find':
        this.rank(last.nodes.map((n) => ({ id: n.id, path: n.path, kind: n.kind })));
        this.phase = this.ranked.length > 0 ? 'expand' : 'submit';
        break;
      case 'expand':
        this.rank(last.candidates.map((n) => ({ id: n.id, path: n.path, kind: n.kind })));
        this.phase = last.candidates.length > 0 ? 'commit' : this.ranked.some(isCode) ? 'read' : 'submit';
        break;
      case 'memory':
        this.phase = 'read';
        break;
      case 'read':
        this.readText += `\n${last.snippets.map((s) => s.text).join('\n')}`;
        this.snippets = last.snippets.filter((s) => !isTestPath(s.path));
        this.phase = this.snippets.length > 0 ? 'repair' : this.unread().length > 0 ? 'read' : 'submit';
        break;
      case 'repair':
        this.phase = last.applied ? 'submit' : this.unread().length > 0 ? 'read' : 'submit';
        break;
      default:
        break;
    }
  }

  private rank(nodes: readonly RankedNode[]): void {
    for (const node of nodes) if (!this.ranked.some((r) => r.id === node.id)) this.ranked.push(node);
  }

  /**
   * Code not read yet, callees of what was read first: when the code the issue names looks right,
   * the bug is usually in something it calls, as a person following the calls would find.
   */
  private unread(): RankedNode[] {
    const called = (n: RankedNode) => {
      const name = n.id.replace(/^.*[#.]/, '').replace(/@\d+$/, '');
      return name !== '' && new RegExp(`\\b${name.replace(/[^\w]/g, '')}\\s*\\(`).test(this.readText);
    };
    const open = this.ranked.filter((n) => isCode(n) && !this.read.has(n.id));
    return [...open.filter(called), ...open.filter((n) => !called(n))];
  }

  private locate(obs: Observation): Action {
    const hints = obs.hints ?? [];
    if (hints.length > 0) {
      this.rank(
        hints.map((id) => ({
          id,
          path: id.replace(/^\w+:/, '').replace(/#.*$/, ''),
          kind: kindOfId(id),
        })),
      );
      return { type: 'explore', op: 'expand', anchors: [], nodes: hints.slice(0, 4), hop: 1, limit: 8, thought: 'Expand around what the issue points at.' };
    }
    // The whole issue: the graph's search weighs its words, so nothing is cut to fit.
    const text = `${obs.issue.title} ${obs.issue.body}`.trim();
    const anchors = [
      ...(obs.failure_frame ? [{ kind: 'file' as const, text: obs.failure_frame.path }] : []),
      ...(obs.failure_frame?.function ? [{ kind: 'symbol' as const, text: obs.failure_frame.function }] : []),
      ...(text === '' ? [] : [{ kind: 'text' as const, text }]),
    ];
    if (anchors.length === 0) return { type: 'submit', thought: 'The issue gives nothing to search for.' };
    this.phase = 'expand';
    return { type: 'explore', op: 'find', anchors, nodes: [], hop: 1, limit: 5, thought: 'Search the code for what the issue mentions.' };
  }

  private expandFrom(): Action {
    const start = this.ranked.slice(0, 4).map((n) => n.id);
    if (start.length === 0) return { type: 'submit', thought: 'Nothing to expand.' };
    return { type: 'explore', op: 'expand', anchors: [], nodes: start, hop: 1, limit: 8, thought: 'Expand around the best matches.' };
  }

  private readNext(left: number): Action {
    const batch = this.unread().slice(0, readsPerRound);
    if (batch.length === 0 || left <= 2) {
      this.phase = 'submit';
      return { type: 'submit', thought: 'Nothing left to read.' };
    }
    for (const node of batch) this.read.add(node.id);
    return { type: 'explore', op: 'read', anchors: [], nodes: batch.map((n) => n.id), hop: 1, limit: batch.length, thought: 'Read the likeliest places.' };
  }

  private repair(obs: Observation): Action {
    const frame = obs.failure_frame;
    const windows: SourceWindow[] = this.snippets.map((s) => ({
      path: s.path,
      start: s.start,
      // A snippet cut for length ends with a marker line that is not source.
      text: s.text
        .split('\n')
        .slice(0, s.end - s.start + 1)
        .join('\n'),
      ...(frame?.line !== undefined && frame.path === s.path && frame.line >= s.start && frame.line <= s.end ? { focusLine: frame.line } : {}),
    }));
    const patches = mutationCandidates(windows, candidatesPerRepair);
    if (patches.length === 0) {
      this.phase = this.unread().length > 0 ? 'read' : 'submit';
      return this.phase === 'read' ? this.readNext(obs.max_steps - obs.step) : { type: 'submit', thought: 'No mutation applies here.' };
    }
    const plan = ['Try single-token mutations in:', ...this.snippets.map((s) => `- ${s.node_id} (${s.path}:${s.start}-${s.end})`)].join('\n');
    return {
      type: 'repair',
      apply: true,
      plan,
      focus_ids: this.snippets.map((s) => s.node_id),
      patches,
      thought: `Trying ${patches.length === 1 ? 'one mutation (#1)' : `${patches.length} mutations, #1–#${patches.length} in the order listed`}; the first that makes the tests pass is kept and the rest are not tried.`,
    };
  }
}

/** A node's kind as its id tells it (`method:…`, `func:…`), for hints the graph has not described yet. */
function kindOfId(id: string): string {
  return id.startsWith('method:') ? 'method' : id.startsWith('func:') ? 'function' : 'other';
}

export function createRuleAgent(): Agent {
  return new RuleAgent();
}
