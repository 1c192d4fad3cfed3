/**
 * How far, step by step, what an episode has seen is from the gold: the fewest known edges
 * (containment read from ids, edges its expansions walked, the graph's edges at its nodes that its
 * end line recorded; taken both ways) from any node seen so
 * far to any gold node. A gold function in a file whose node the agent saw is 1 away (the file
 * contains it); one in a file whose other function it saw is 2 (through the file). When no known
 * path joins them the distance is unknown (null), never a number made up: the graph the episode
 * ran on had more edges than the trajectory recorded, so a longer true path may exist.
 */
import type { ExploredSubgraph } from './exploredSubgraph.js';

/** Hops from the nearest gold node, for every node a known path reaches. */
export function distancesFromGold(gold: Iterable<string>, edges: ReadonlyArray<{ readonly src: string; readonly dst: string }>): Map<string, number> {
  const around = new Map<string, string[]>();
  const link = (a: string, b: string): void => {
    const list = around.get(a);
    if (list === undefined) around.set(a, [b]);
    else list.push(b);
  };
  for (const e of edges) {
    link(e.src, e.dst);
    link(e.dst, e.src);
  }
  const distance = new Map<string, number>();
  let frontier: string[] = [];
  for (const g of gold) {
    if (distance.has(g)) continue;
    distance.set(g, 0);
    frontier.push(g);
  }
  for (let hops = 1; frontier.length > 0; hops++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const n of around.get(id) ?? []) {
        if (distance.has(n)) continue;
        distance.set(n, hops);
        next.push(n);
      }
    }
    frontier = next;
  }
  return distance;
}

/**
 * Per step (0 after reset, then each step), the distance from what has been seen by then to the
 * nearest gold node; null where nothing seen has a known path to gold, or there is no gold.
 */
export function distanceBySteps(subgraph: ExploredSubgraph, gold: ReadonlySet<string>): Array<{ step: number; seen: number; distance: number | null }> {
  const fromGold = gold.size === 0 ? new Map<string, number>() : distancesFromGold(gold, [...subgraph.edges, ...subgraph.recordedEdges]);
  const seenAt = [...subgraph.nodes.values()].flatMap((n) => (n.first.seen === undefined ? [] : [{ step: n.first.seen, distance: fromGold.get(n.id) }]));
  return subgraph.steps.map(({ step }) => {
    const seen = seenAt.filter((n) => n.step <= step);
    const known = seen.flatMap((n) => (n.distance === undefined ? [] : [n.distance]));
    return { step, seen: seen.length, distance: gold.size === 0 || known.length === 0 ? null : Math.min(...known) };
  });
}
