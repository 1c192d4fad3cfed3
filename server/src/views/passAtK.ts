/**
 * pass@k of a run that attempted its tasks several times: the chance that at least one of k
 * attempts drawn from a task's n graded ones resolves it, by the unbiased estimator of Chen et al.
 * (2021), `1 − C(n−c, k) / C(n, k)` for c resolved of n, averaged over the tasks. Computed as a
 * product, as that paper does, so no binomial coefficient overflows for large n.
 */

/** A task's graded attempts and how many of them resolved it. */
export interface TaskAttempts {
  readonly n: number;
  readonly c: number;
}

export interface PassAtK {
  readonly k: number;
  /** The mean over `tasks` tasks, each with at least k graded attempts. */
  readonly value: number;
  readonly tasks: number;
}

/** One task's pass@k; k must be between 1 and n. */
export function taskPassAtK({ n, c }: TaskAttempts, k: number): number {
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** The k shown: 1, then the usual steps (2, 3, 5, 10, 20, 50, 100) and n itself, up to the fewest attempts any task had. */
const steps = [1, 2, 3, 5, 10, 20, 50, 100];

/**
 * pass@k for each k worth showing, or nothing when no task was attempted more than once (pass@1 is
 * then the resolved rate, already on the page). Tasks with no graded attempt are left out: the
 * infrastructure failed them, and they say nothing about the agent.
 */
export function passAtKTable(tasks: readonly TaskAttempts[]): PassAtK[] {
  const graded = tasks.filter((t) => t.n > 0);
  if (!graded.some((t) => t.n > 1)) return [];
  const fewest = Math.min(...graded.map((t) => t.n));
  const ks = [...new Set([...steps.filter((k) => k <= fewest), fewest])];
  return ks.map((k) => ({ k, value: graded.reduce((sum, t) => sum + taskPassAtK(t, k), 0) / graded.length, tasks: graded.length }));
}
