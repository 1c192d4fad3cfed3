/** Races a promise against a timer, so a call that never answers fails instead of hanging. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what = 'no answer'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
