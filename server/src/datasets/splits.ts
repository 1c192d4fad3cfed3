/**
 * Train/validation membership from a stable hash of each task id (see `stableIds.ts`). With a
 * fraction, each task's side depends on its own id alone, so adding or removing rows never moves
 * another task; with a size, the validation set is the `size` ids with the smallest hashes, so
 * growing the size only moves tasks from train into validation.
 */
import { idFraction } from './stableIds.js';

export type SplitRule =
  | { readonly kind: 'none' }
  | { readonly kind: 'fraction'; readonly fraction: number; readonly salt?: string }
  | { readonly kind: 'size'; readonly size: number; readonly salt?: string };

/** The ids that go to validation. */
export function validationIds(ids: Iterable<string>, rule: SplitRule): Set<string> {
  if (rule.kind === 'none') return new Set();
  const salt = rule.salt ?? '';
  if (rule.kind === 'fraction') {
    const out = new Set<string>();
    for (const id of ids) if (idFraction(id, salt) < rule.fraction) out.add(id);
    return out;
  }
  const ranked = [...ids].map((id) => ({ id, f: idFraction(id, salt) }));
  // Ties are all but impossible with 32 bits of hash; the id breaks them so the order is total.
  ranked.sort((a, b) => a.f - b.f || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return new Set(ranked.slice(0, Math.max(0, rule.size)).map((r) => r.id));
}
