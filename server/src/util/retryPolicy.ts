/**
 * The one retry policy of our HTTP clients (the model clients, agents/retry.ts; the Hugging Face
 * hub, datasets/hfHttp.ts; a sandbox host registering with the front door, cluster/sandboxHost.ts):
 * exponential backoff with equal jitter, capped, and a server's Retry-After honoured up to the same
 * cap. Which failures are worth another try stays with each client, because it depends on what
 * the server's answers mean.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** First backoff; it doubles with each retry (with jitter). */
  backoffMs: number;
  /** Longest backoff, and the cap on a server's Retry-After (30 s when absent). */
  maxBackoffMs?: number;
}

const defaultMaxBackoffMs = 30_000;

/** The longest wait before a retry under `policy`. */
export function backoffCap(policy: Pick<RetryPolicy, 'maxBackoffMs'>): number {
  return policy.maxBackoffMs ?? defaultMaxBackoffMs;
}

/** The wait before retry number `retry` (0-based): exponential backoff with equal jitter, half fixed, half random. */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, 'backoffMs' | 'maxBackoffMs'>, random: () => number = Math.random): number {
  const base = Math.min(backoffCap(policy), policy.backoffMs * 2 ** retry);
  return base / 2 + (random() * base) / 2;
}

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms` before a retry; false when `signal` was aborted first (the caller says what was cancelled). */
export async function waitToRetry(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, signal === undefined ? {} : { signal });
    return true;
  } catch {
    return false;
  }
}
