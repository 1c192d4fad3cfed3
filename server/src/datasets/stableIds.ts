/**
 * Task ids and split membership that depend only on a row's content, never on its position: the
 * original derived R2E-Gym ids from the row index, so changing the validation size renamed every
 * task (docs/original-system.md#g2-r2e-gym-conversion). Here an id comes from the row's own fields, and a task's split from a hash of
 * its id, so adding rows, removing rows or changing the validation fraction never renames a task.
 */
import { createHash } from 'node:crypto';

/** The characters a task id may use in file names (`instances/<id>.json`); others become `_`. */
export function safeId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_.-]+/g, '_').replace(/^[._]+|[._]+$/g, '');
}

/** JSON with object keys sorted at every level, so equal content hashes equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A number in [0, 1) from the id's SHA-256, uniform enough to split on. The salt lets a user
 * draw a different validation set without renaming anything.
 */
export function idFraction(id: string, salt = ''): number {
  const digest = createHash('sha256').update(`${salt}\u0000${id}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}
