/**
 * The code-graph view of an episode (protocol/codeGraphView.ts): the subgraph its trajectory
 * recorded (`exploredSubgraph.ts`), its edits and the task's gold patch placed on nodes
 * (`goldNodes.ts`, with the run's pre-images and the task's repository as sources), the distance
 * to gold step by step (`goldDistance.ts`), its localisation recall (`localisationRecall.ts`), laid
 * out on the server (`codeGraphLayout.ts`). Finding the task's gold patch, repository and parser
 * is the caller's (`launch/episodeGold.ts`), since those live in folders this one may not import.
 */
import type { CodeGraphNode, EpisodeCodeGraph, EpisodeRecall, GoldSummary } from '../protocol/codeGraphView.js';
import type { Preimage } from '../protocol/observation.js';
import { layoutSubgraph, edgeKey } from './codeGraphLayout.js';
import { type EpisodeModel, runDirOfTrajectory } from '../episodes/index.js';
import { addNodes, exploredSubgraph, type ExploredNode, type ExploredSubgraph } from './exploredSubgraph.js';
import { distanceBySteps, distancesFromGold } from './goldDistance.js';
import { changedNodes, type CandidateText, type DefinitionSpan, type Gold, type GoldSources } from './goldNodes.js';
import { episodeRecall } from './localisationRecall.js';
import { containerCandidates, nodeIdOf } from './nodeIds.js';
import { readPreimage } from '../runs/index.js';

/** What the caller found of the episode's task. */
export interface EpisodeGoldSource {
  /** The gold patch; undefined when none was found (`note` says why). */
  readonly patch: string | undefined;
  /** The file the patch came from. */
  readonly source: string | null;
  readonly note: string | null;
  /** A file of the task's local repository, when the task names one that holds it. */
  readonly repositoryText?: (path: string) => Promise<string | undefined>;
  /** The code graph's parser, for definitions of a file's text. */
  readonly parse?: (path: string, text: string) => Promise<readonly DefinitionSpan[]>;
}

/**
 * Most nodes drawn unless the view asks for more: past it, the nodes only seen in passing and
 * farthest from gold are left out (counted on their file's node), so a long episode on a large
 * repository still reads as a picture of what the agent did.
 */
export const defaultDrawnNodes = 150;
/** The most a view may ask to draw. */
export const maxDrawnNodes = 1000;

/** Pre-images the run kept of a path, from every repair candidate that recorded one. */
function preimagesOf(model: EpisodeModel): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const s of model.steps) {
    const last = s.record.observation.last;
    if (last?.kind !== 'repair') continue;
    for (const c of last.candidates) {
      for (const p of c.preimages ?? ([] as Preimage[])) {
        if (p.sha256 === null) continue;
        const list = byPath.get(p.path) ?? [];
        if (!list.includes(p.sha256)) list.push(p.sha256);
        byPath.set(p.path, list);
      }
    }
  }
  return byPath;
}

/** The sources `goldNodes.ts` places changes with: texts before the fix, the parser, the recorded spans. */
export function goldSourcesFor(trajectory: string, model: EpisodeModel, sub: ExploredSubgraph, source: EpisodeGoldSource): GoldSources {
  const runDir = runDirOfTrajectory(trajectory);
  const preimages = preimagesOf(model);
  const cache = new Map<string, Promise<readonly CandidateText[]>>();
  const texts = (path: string): Promise<readonly CandidateText[]> => {
    let found = cache.get(path);
    if (found === undefined) {
      found = (async () => {
        const out: CandidateText[] = [];
        for (const sha of preimages.get(path) ?? []) {
          const bytes = await readPreimage(runDir, sha);
          if (bytes !== undefined) out.push({ evidence: 'pre-image', text: bytes.toString('utf8') });
        }
        const repo = await source.repositoryText?.(path);
        if (repo !== undefined) out.push({ evidence: 'repository', text: repo });
        return out;
      })();
      cache.set(path, found);
    }
    return found;
  };
  const recorded = [...sub.nodes.values()].flatMap((n): DefinitionSpan[] =>
    n.kind === 'file' || n.span === null ? [] : [{ id: n.id, kind: n.kind, path: n.path, span: n.span }],
  );
  return { texts, recorded, ...(source.parse === undefined ? {} : { parse: source.parse }) };
}

/** The subgraph with the episode's edits placed on nodes and the gold nodes added. */
async function withEditsAndGold(sub: ExploredSubgraph, sources: GoldSources, gold: Gold | undefined): Promise<ExploredSubgraph> {
  const additions: Array<Parameters<typeof addNodes>[1][number]> = [];
  for (const { step, diff } of sub.diffs) {
    const changed = await changedNodes(diff, sources);
    for (const path of changed.files) additions.push({ id: nodeIdOf('file', path, ''), met: { how: 'edited', step } });
    for (const f of changed.functions)
      additions.push({
        id: f.id,
        met: { how: 'edited', step },
        ...(f.span === null ? {} : { full: { kind: f.kind, name: f.id.split(/[#.]/).pop() ?? f.id, path: f.path, span: f.span } }),
      });
  }
  for (const path of gold?.files ?? []) additions.push({ id: nodeIdOf('file', path, '') });
  for (const f of gold?.functions ?? [])
    additions.push({ id: f.id, ...(f.span === null ? {} : { full: { kind: f.kind, name: f.id.split(/[#.]/).pop() ?? f.id, path: f.path, span: f.span } }) });
  return addNodes(sub, additions);
}

/** Everything a view or a chart needs of one episode, before layout. */
export interface EpisodeLocalisation {
  readonly subgraph: ExploredSubgraph;
  readonly gold: Gold | undefined;
  /** Gold node ids with their evidence. */
  readonly goldIds: Map<string, CodeGraphNode['gold']>;
  readonly recall: EpisodeRecall | null;
  readonly summary: GoldSummary;
}

export async function localiseEpisode(trajectory: string, model: EpisodeModel, source: EpisodeGoldSource): Promise<EpisodeLocalisation> {
  const explored = exploredSubgraph(model);
  const sources = goldSourcesFor(trajectory, model, explored, source);
  const gold = source.patch === undefined ? undefined : await changedNodes(source.patch, sources);
  const subgraph = await withEditsAndGold(explored, sources, gold);
  const goldIds = new Map<string, CodeGraphNode['gold']>();
  for (const path of gold?.files ?? []) goldIds.set(nodeIdOf('file', path, ''), 'diff-header');
  for (const f of gold?.functions ?? []) goldIds.set(f.id, f.evidence);
  const unreadable =
    gold !== undefined && gold.files.length === 0 && gold.created.length === 0
      ? [`The gold patch${source.source === null ? '' : ` in ${source.source}`} names no file; is it a unified diff?`]
      : [];
  const notes = [...(source.note === null ? [] : [source.note]), ...(gold?.notes ?? []), ...unreadable];
  const summary: GoldSummary = {
    source: source.source,
    files: [...(gold?.files ?? [])],
    functions: (gold?.functions ?? []).map((f) => ({ id: f.id, evidence: f.evidence })),
    note: notes.length === 0 ? null : notes.join(' '),
  };
  return { subgraph, gold, goldIds, recall: gold === undefined ? null : episodeRecall(subgraph.nodes.values(), gold), summary };
}

/** Whether the episode did more with a node than see it in passing. */
function engaged(n: ExploredNode): boolean {
  return (
    n.first.found !== undefined ||
    n.first.expanded !== undefined ||
    n.first.read !== undefined ||
    n.first.remembered !== undefined ||
    n.first.edited !== undefined
  );
}

/**
 * The nodes to draw: all of them up to `limit`; past it, those only seen in passing go
 * first, the farthest from gold (unknown farthest) and the latest seen before others, and with
 * them any container left holding nothing drawn.
 */
function chooseDrawn(sub: ExploredSubgraph, goldIds: ReadonlyMap<string, unknown>, limit: number): Set<string> {
  const all = [...sub.nodes.values()];
  if (all.length <= limit) return new Set(all.map((n) => n.id));
  const fromGold = distancesFromGold(goldIds.keys(), [...sub.edges, ...sub.recordedEdges]);
  const keep = new Set(all.filter((n) => engaged(n) || goldIds.has(n.id) || n.first.seen === 0).map((n) => n.id));
  const passing = all
    .filter((n) => !keep.has(n.id) && n.first.seen !== undefined)
    .sort((a, b) => (fromGold.get(a.id) ?? Infinity) - (fromGold.get(b.id) ?? Infinity) || (a.first.seen ?? 0) - (b.first.seen ?? 0));
  for (const n of passing) if (keep.size < limit) keep.add(n.id);
  // Containers of what is kept stay, so each drawn node still hangs from its file.
  const parents = parentsOf(sub, () => true);
  for (const id of [...keep]) for (let p = parents.get(id); p !== undefined && !keep.has(p); p = parents.get(p)) keep.add(p);
  return keep;
}

function label(n: ExploredNode): string {
  if (n.kind === 'file') return n.path;
  const hash = n.id.indexOf('#');
  return hash < 0 ? n.name : n.id.slice(hash + 1);
}

/**
 * Each node's container among `among`: a containment edge whose ends the ids say are container and
 * contained (an expansion may have recorded it first; what it walked is the same edge).
 */
function parentsOf(sub: ExploredSubgraph, among: (id: string) => boolean): Map<string, string> {
  return new Map(
    sub.edges.filter((e) => e.kind === 'contains' && among(e.src) && among(e.dst) && containerCandidates(e.dst).includes(e.src)).map((e) => [e.dst, e.src]),
  );
}

/** The earliest step at which the episode met a node or anything inside it (files are ordered by it). */
function firstMet(nodes: readonly ExploredNode[], parents: ReadonlyMap<string, string>): Map<string, number> {
  const met = new Map<string, number>();
  for (const n of nodes) {
    const at = n.first.seen ?? Number.POSITIVE_INFINITY;
    for (let id: string | undefined = n.id; id !== undefined; id = parents.get(id)) met.set(id, Math.min(met.get(id) ?? Number.POSITIVE_INFINITY, at));
  }
  return met;
}

export async function episodeCodeGraph(
  trajectory: string,
  model: EpisodeModel,
  source: EpisodeGoldSource,
  limit = defaultDrawnNodes,
): Promise<EpisodeCodeGraph> {
  const local = await localiseEpisode(trajectory, model, source);
  const { subgraph, goldIds } = local;
  const drawn = chooseDrawn(subgraph, goldIds, Math.min(Math.max(1, limit), maxDrawnNodes));
  const nodes = [...subgraph.nodes.values()].filter((n) => drawn.has(n.id));
  const edges = subgraph.edges.filter((e) => drawn.has(e.src) && drawn.has(e.dst));
  const hidden = new Map<string, number>();
  for (const n of subgraph.nodes.values()) if (!drawn.has(n.id)) hidden.set(n.path, (hidden.get(n.path) ?? 0) + 1);
  const hiddenIn = (n: ExploredNode): number => (n.kind === 'file' ? (hidden.get(n.path) ?? 0) : 0);
  const parents = parentsOf(subgraph, (id) => drawn.has(id));
  const met = firstMet(nodes, parents);
  const placed = layoutSubgraph(
    nodes.map((n) => ({
      id: n.id,
      label: hiddenIn(n) > 0 ? `${label(n)}  +${hiddenIn(n)} more` : label(n),
      parent: parents.get(n.id),
      order: [n.kind === 'file' ? (met.get(n.id) ?? Number.POSITIVE_INFINITY) : (n.span?.start ?? Number.POSITIVE_INFINITY), 0, n.id] as const,
    })),
    edges.map((e) => ({ src: e.src, dst: e.dst, contains: parents.get(e.dst) === e.src })),
  );
  const distances = distanceBySteps(subgraph, new Set(goldIds.keys()));
  const step = (s: number | undefined) => s ?? null;
  return {
    file: trajectory,
    taskId: model.start?.task_id ?? model.end?.task_id ?? null,
    episodeId: model.start?.episode_id ?? model.end?.episode_id ?? null,
    nodes: nodes.map((n) => {
      const at = placed.nodes.get(n.id) ?? { x: 0, y: 0, width: 0, height: 0 };
      return {
        id: n.id,
        kind: n.kind,
        name: label(n),
        path: n.path,
        span: n.span,
        seen: step(n.first.seen),
        found: step(n.first.found),
        expanded: step(n.first.expanded),
        read: step(n.first.read),
        remembered: step(n.first.remembered),
        edited: step(n.first.edited),
        gold: goldIds.get(n.id) ?? null,
        hidden: hiddenIn(n),
        ...at,
      };
    }),
    edges: edges.map((e) => ({ ...e, points: placed.edges.get(edgeKey(e.src, e.dst)) ?? [] })),
    steps: subgraph.steps.map((s, i) => ({ ...s, seen: distances[i]?.seen ?? 0, distance: distances[i]?.distance ?? null })),
    width: placed.width,
    height: placed.height,
    gold: local.summary,
    recall: local.recall,
    omitted: subgraph.nodes.size - nodes.length,
    total: subgraph.nodes.size,
  };
}
