/**
 * One group's share of the benchmark: the release's graph is built once, the baselines are indexed
 * over the same files, and each instance's gold is found on that graph and ranked by all three
 * rankers with the same issue text. The caller drops the graph when the group is done.
 */
import { buildCodeGraphFromFiles, type CodeGraph, type SemanticIndex, type SourceFile } from '../server/src/graph/index.js';
import { fileBm25, functionBm25, type Ranker, type Ranking } from './localisationBaselines.js';
import { issueOf, type Instance } from './localisationData.js';
import { parseGoldPatch } from './localisationDiff.js';
import { goldOn, qualifiedKey, type InstanceGold } from './localisationGold.js';
import { goldRanks, recallAt, recallDepths, type Depth } from './localisationScore.js';

/**
 * `ours` is the graph's ranking with every retriever the machine has (the embedding model when it is
 * installed); `ours_no_embeddings` the same without the semantic retriever, to show what it adds.
 */
export const rankerNames = ['ours', 'ours_no_embeddings', 'bm25_files', 'bm25_functions'] as const;
export type RankerName = (typeof rankerNames)[number];

/** How one ranker did on one level (files or functions) of one instance. */
export interface LevelScore {
  readonly top10: readonly string[];
  readonly goldRanks: Readonly<Record<string, number | null>>;
  readonly recall: Readonly<Record<Depth, number>>;
}

export interface RankerScore {
  readonly files: LevelScore;
  /** Absent for BM25 over files, which ranks no definitions, and for instances not scored for functions. */
  readonly functions?: LevelScore;
}

export interface InstanceRecord {
  readonly instance_id: string;
  readonly repo: string;
  readonly version: string;
  readonly release?: string;
  /** Why the instance was not scored at all (no release, download failure, no gold file in the sdist), as a short phrase. */
  readonly filesSkip?: string;
  readonly functionsSkip?: string;
  /** The details behind a skip of the whole group (which file, what the network said). */
  readonly skipDetail?: string;
  readonly gold?: Omit<InstanceGold, 'filesSkip' | 'functionsSkip'>;
  readonly rankers?: Readonly<Partial<Record<RankerName, RankerScore>>>;
  /** The retrievers our ranking fused, and whether it kept tests. */
  readonly retrievers?: readonly string[];
  readonly testsKept?: boolean;
}

export interface GroupTimings {
  readonly graphSeconds: number;
  /** Building the graph's node embeddings (from the cache when the code was seen before). */
  readonly embedSeconds: number;
  readonly baselineIndexSeconds: number;
  readonly rankSeconds: Readonly<Record<RankerName, number>>;
}

/** Depth of the rankings asked for; the gold's ranks are reported within it. */
const rankingLimit = 50;

function levelScore(gold: readonly string[], ranked: readonly string[]): LevelScore {
  return {
    top10: ranked.slice(0, 10),
    goldRanks: goldRanks(gold, ranked),
    recall: Object.fromEntries(recallDepths.map((k) => [k, recallAt(gold, ranked, k)])) as Record<Depth, number>,
  };
}

function rankerScore(gold: InstanceGold, ranking: Ranking, withFunctions: boolean): RankerScore {
  const files = levelScore(gold.files, ranking.files);
  return withFunctions && gold.functionsSkip === undefined ? { files, functions: levelScore(gold.definitions, ranking.definitions) } : { files };
}

async function oursRanking(
  graph: CodeGraph,
  instance: Instance,
  semantic: SemanticIndex | undefined,
): Promise<Ranking & { retrievers: string[]; testsKept: boolean }> {
  const ranking = await graph.rank(issueOf(instance.problem_statement), { limit: rankingLimit, ...(semantic === undefined ? {} : { semantic }) });
  const definitions = [...new Set(ranking.definitions.flatMap((r) => qualifiedKey(r.node.id) ?? []))];
  return { files: ranking.files, definitions, retrievers: ranking.retrievers, testsKept: ranking.testsKept };
}

/** Scores the group's instances on the graph of `files`, the release standing for their version. */
export async function scoreGroup(
  instances: readonly Instance[],
  files: readonly SourceFile[],
  release: string,
  semanticFor?: (graph: CodeGraph) => Promise<SemanticIndex | undefined>,
): Promise<{ records: InstanceRecord[]; timings: GroupTimings }> {
  let started = performance.now();
  const graph = await buildCodeGraphFromFiles(files);
  const graphSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const semantic = await semanticFor?.(graph);
  const embedSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const baselines: Record<'bm25_files' | 'bm25_functions', Ranker> = { bm25_files: fileBm25(files), bm25_functions: functionBm25(graph) };
  const baselineIndexSeconds = (performance.now() - started) / 1000;
  const rankSeconds: Record<RankerName, number> = { ours: 0, ours_no_embeddings: 0, bm25_files: 0, bm25_functions: 0 };
  const timed = async <T>(name: RankerName, work: () => T | Promise<T>): Promise<T> => {
    const start = performance.now();
    const value = await work();
    rankSeconds[name] += (performance.now() - start) / 1000;
    return value;
  };

  const records: InstanceRecord[] = [];
  for (const instance of instances) {
    const base = { instance_id: instance.instance_id, repo: instance.repo, version: instance.version, release };
    const { filesSkip, functionsSkip, ...gold } = goldOn(parseGoldPatch(instance.patch), graph);
    const skips = { ...(filesSkip === undefined ? {} : { filesSkip }), ...(functionsSkip === undefined ? {} : { functionsSkip }) };
    if (filesSkip !== undefined) {
      records.push({ ...base, ...skips, gold });
      continue;
    }
    const full = { ...gold, ...skips };
    const ours = await timed('ours', () => oursRanking(graph, instance, semantic));
    const withoutEmbeddings = semantic === undefined ? ours : await timed('ours_no_embeddings', () => oursRanking(graph, instance, undefined));
    const bm25Files = await timed('bm25_files', () => baselines.bm25_files.rank(instance.problem_statement, rankingLimit));
    const bm25Functions = await timed('bm25_functions', () => baselines.bm25_functions.rank(instance.problem_statement, rankingLimit));
    records.push({
      ...base,
      ...skips,
      gold,
      rankers: {
        ours: rankerScore(full, ours, true),
        ours_no_embeddings: rankerScore(full, withoutEmbeddings, true),
        bm25_files: rankerScore(full, bm25Files, false),
        bm25_functions: rankerScore(full, bm25Functions, true),
      },
      retrievers: ours.retrievers,
      testsKept: ours.testsKept,
    });
  }
  return { records, timings: { graphSeconds, embedSeconds, baselineIndexSeconds, rankSeconds } };
}
