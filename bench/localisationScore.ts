/**
 * Recall at k of a ranking against the gold set, and its mean over instances. An instance counts
 * in a mean only when it was scored for that level (files or functions), so every ranker is
 * averaged over the same instances.
 */

export const recallDepths = [1, 5, 10] as const;
export type Depth = (typeof recallDepths)[number];

/** |gold ∩ top k| / |gold|; 0 for an empty gold set, which the callers never score. */
export function recallAt(gold: readonly string[], ranked: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

/** Each gold item's 1-based rank in the ranking, or null when the ranking does not hold it. */
export function goldRanks(gold: readonly string[], ranked: readonly string[]): Record<string, number | null> {
  return Object.fromEntries(
    gold.map((g) => {
      const index = ranked.indexOf(g);
      return [g, index < 0 ? null : index + 1];
    }),
  );
}

/** Mean recall at each depth over the instances' (gold, ranking) pairs. */
export function meanRecall(pairs: ReadonlyArray<{ gold: readonly string[]; ranked: readonly string[] }>): Record<Depth, number> {
  const mean = (k: number): number => (pairs.length === 0 ? 0 : pairs.reduce((sum, p) => sum + recallAt(p.gold, p.ranked, k), 0) / pairs.length);
  return { 1: mean(1), 5: mean(5), 10: mean(10) };
}
