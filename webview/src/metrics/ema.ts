/**
 * TensorBoard's smoothing of a scalar curve, so a curve here looks like the same curve there: an
 * exponential moving average started at zero and divided by its debiasing weight `1 - w^n` (the
 * first points are not pulled towards zero); a constant series is left as it is, and a value that
 * is not finite is kept as it is without entering the average.
 */
export function smoothEma(values: readonly number[], weight: number): number[] {
  const w = Math.min(Math.max(weight, 0), 0.999);
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length > 0 && finite.every((v) => v === finite[0])) return [...values];
  let last = 0;
  let accumulated = 0;
  return values.map((value) => {
    if (!Number.isFinite(value)) return value;
    last = last * w + (1 - w) * value;
    accumulated++;
    const debias = w === 1 ? 1 : 1 - Math.pow(w, accumulated);
    return last / debias;
  });
}
