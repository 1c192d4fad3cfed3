/**
 * Polling with a deadline. The end-to-end tests wait for what a person would see, never for a
 * fixed time, and when the wait runs out the failure says what was seen instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../../server/src/util/errors.js';

export interface WaitOptions {
  /** How long to keep trying, in milliseconds. */
  readonly timeoutMs?: number;
  /** Pause between two probes, in milliseconds. */
  readonly intervalMs?: number;
}

export type Probe<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'pending'; readonly seen: string };

export function done<T>(value: T): Probe<T> {
  return { kind: 'done', value };
}

export function pending(seen: string): Probe<never> {
  return { kind: 'pending', seen };
}

export class WaitTimeout extends Error {
  override name = 'WaitTimeout';
}

/**
 * Runs `probe` until it reports `done` and returns its value. On timeout it throws an error that
 * names the condition and carries the last thing the probe saw. A probe that throws counts as
 * pending (the page may be mid-render); its error becomes what was seen.
 */
export async function waitFor<T>(what: string, probe: () => Promise<Probe<T>>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  let seen = '(nothing yet)';
  for (;;) {
    try {
      const result = await probe();
      if (result.kind === 'done') return result.value;
      seen = result.seen;
    } catch (error) {
      seen = `probe failed: ${errorMessage(error)}`;
    }
    if (Date.now() >= deadline) {
      throw new WaitTimeout(`Timed out after ${timeoutMs} ms waiting for ${what}.\nLast seen:\n${indent(seen)}`);
    }
    await sleep(intervalMs);
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
