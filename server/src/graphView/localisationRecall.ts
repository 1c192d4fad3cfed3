/**
 * Localisation recall of an episode against its task's gold patch: of the gold files, how many the
 * episode saw (any node of the file named in an observation), read (a read returned lines of it)
 * and edited (its repository diff changed it); of the gold definitions, how many it saw (the node
 * itself), read (its own lines, or a read of a node around them) and edited (a change placed in
 * it). Gold and episode nodes are matched by qualified name (`path#Class.method`), never by line.
 * Over a run or a training step the episode figures are averaged over the episodes that have gold
 * to score, each level (files, functions) apart.
 */
import type { EpisodeRecall, LocalisationGroup, RecallCounts } from '../protocol/codeGraphView.js';
import type { ExploredNode } from './exploredSubgraph.js';
import type { Gold } from './goldNodes.js';
import { qualifiedKey } from './nodeIds.js';

function counts(gold: readonly string[], seen: ReadonlySet<string>, read: ReadonlySet<string>, edited: ReadonlySet<string>): RecallCounts {
  return {
    gold: gold.length,
    seen: gold.filter((g) => seen.has(g)).length,
    read: gold.filter((g) => read.has(g)).length,
    edited: gold.filter((g) => edited.has(g)).length,
  };
}

/** The episode's recall; null when the gold names neither a file nor a definition. */
export function episodeRecall(nodes: Iterable<ExploredNode>, gold: Gold): EpisodeRecall | null {
  if (gold.files.length === 0 && gold.functions.length === 0) return null;
  const all = [...nodes];
  const met = (how: 'seen' | 'read' | 'edited') => all.filter((n) => n.first[how] !== undefined);
  const paths = (list: readonly ExploredNode[]) => new Set(list.map((n) => n.path));
  const keys = (list: readonly ExploredNode[]) => new Set(list.flatMap((n) => qualifiedKey(n.id) ?? []));
  const read = met('read');
  const readKeys = keys(read);
  // A read of a file or a class returns the lines of what it contains: those definitions were read too.
  for (const g of gold.functions) {
    const span = g.span;
    if (span !== null && read.some((r) => r.path === g.path && r.span !== null && r.span.start <= span.start && span.end <= r.span.end))
      readKeys.add(qualifiedKey(g.id) ?? g.id);
  }
  const goldKeys = gold.functions.flatMap((f) => qualifiedKey(f.id) ?? []);
  return {
    files: counts(gold.files, paths(met('seen')), paths(read), paths(met('edited'))),
    functions: counts(goldKeys, keys(met('seen')), readKeys, keys(met('edited'))),
  };
}

const fraction = (c: RecallCounts, how: 'seen' | 'read' | 'edited'): number => (c.gold === 0 ? 0 : c[how] / c.gold);

/** Mean recall of a group of episodes (a training step's, or a whole run's). */
export function groupRecall(step: number | null, recalls: ReadonlyArray<EpisodeRecall | null>): LocalisationGroup {
  const files = recalls.flatMap((r) => (r === null || r.files.gold === 0 ? [] : [r.files]));
  const functions = recalls.flatMap((r) => (r === null || r.functions.gold === 0 ? [] : [r.functions]));
  const mean = (list: readonly RecallCounts[]) => {
    const of = (how: 'seen' | 'read' | 'edited') => (list.length === 0 ? 0 : list.reduce((sum, c) => sum + fraction(c, how), 0) / list.length);
    return { seen: of('seen'), read: of('read'), edited: of('edited') };
  };
  return { step, episodes: recalls.length, scoredFiles: files.length, scoredFunctions: functions.length, files: mean(files), functions: mean(functions) };
}
