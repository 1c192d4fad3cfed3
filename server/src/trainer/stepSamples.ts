/**
 * Which of a training step's episodes go into its sample table (`step_samples.jsonl`): at most
 * `count`, spread evenly over the episodes ordered by return, so the worst and the best are always
 * there and the rest show the middle. The same episodes give the same sample.
 */
export function sampleByTotalReward<T extends { readonly total_reward: number; readonly episode_id: string }>(episodes: readonly T[], count: number): T[] {
  const ordered = [...episodes].sort((a, b) => a.total_reward - b.total_reward || (a.episode_id < b.episode_id ? -1 : a.episode_id > b.episode_id ? 1 : 0));
  if (ordered.length <= count) return ordered;
  if (count <= 1) return ordered.slice(-Math.max(0, count));
  const picked = new Set<number>();
  for (let i = 0; i < count; i++) picked.add(Math.round((i * (ordered.length - 1)) / (count - 1)));
  return [...picked].sort((a, b) => a - b).flatMap((i) => ordered[i] ?? []);
}
