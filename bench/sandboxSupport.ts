/**
 * What the sandbox figures share: the image and labels of every container they create, the spec of
 * our sandboxes, the count of wrong answers that makes a figure fail, timing helpers, and the sweep
 * that removes whatever a figure left behind.
 */
import { hostname } from 'node:os';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type Docker from 'dockerode';
import { sandboxLabels, sandboxSpecSchema, type SandboxSpec } from '../server/src/protocol/sandbox.js';
import { percentiles } from './stats.js';
import { defaultSandboxOptions } from '../server/src/launch/index.js';

/** The sample task image that `npx tsx scripts/buildImages.ts` builds; it holds a git repository. */
export const sampleImage = 'graph-planner/repoenv-sample:latest';
export const sampleWorkdir = '/testbed';

export interface SandboxBench {
  readonly docker: Docker;
  /** The `graph-planner.run` label of every container this process creates, and only of those. */
  readonly run: string;
  readonly log: (line: string) => void;
}

export function benchSpec(bench: SandboxBench, task: string): SandboxSpec {
  return sandboxSpecSchema.parse({ ...defaultSandboxOptions(), backend: 'docker', image: sampleImage, workdir: sampleWorkdir, run: bench.run, task });
}

/**
 * Wrong answers seen while measuring. A figure with any is reported as failed: a fast answer that
 * is wrong must not count as a pass.
 */
export class Mismatches {
  private readonly counts = new Map<string, number>();
  private first = '';

  /** Records a mismatch of `who` (`ours`, `anchor`) when `ok` is false. */
  check(who: string, ok: boolean, describe: () => string): void {
    if (ok) return;
    this.counts.set(who, (this.counts.get(who) ?? 0) + 1);
    if (this.first === '') this.first = `${who}: ${describe()}`;
  }

  count(who: string): number {
    return this.counts.get(who) ?? 0;
  }

  get total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  /** For a figure's details: the count per side, and the first mismatch in words when there is one. */
  details(...sides: string[]): Record<string, number | string> {
    const out: Record<string, number | string> = {};
    for (const side of sides) out[`${side}Mismatches`] = this.count(side);
    if (this.first !== '') out['firstMismatch'] = this.first.slice(0, 300);
    return out;
  }
}

/** Milliseconds that `work` took, with its value. */
export async function timed<T>(work: () => Promise<T>): Promise<{ readonly ms: number; readonly value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** Three significant digits: the precision a millisecond timing on a shared machine deserves. */
export function sig3(value: number): number {
  return Number(value.toPrecision(3));
}

/** `<prefix>P50Ms`, `<prefix>P90Ms`, `<prefix>P99Ms` and `<prefix>Samples` of a set of timings. */
export function spreadDetails(prefix: string, samples: readonly number[]): Record<string, number> {
  const { p50, p90, p99 } = percentiles(samples);
  return { [`${prefix}P50Ms`]: sig3(p50), [`${prefix}P90Ms`]: sig3(p90), [`${prefix}P99Ms`]: sig3(p99), [`${prefix}Samples`]: samples.length };
}

/** Reads an exec's output stream to its end; the command has ended when it does. */
export async function drain(stream: Readable): Promise<void> {
  stream.resume();
  await finished(stream);
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** Force-removes one container of ours; one already gone (404) or being removed (409) is fine. */
export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    const code = statusCode(error);
    if (code !== 404 && code !== 409) throw error;
  }
}

/**
 * Removes every container that carries this process's run label and this host's name, and returns
 * how many there were. The label holds our pid, so containers of other runs and people on the same
 * engine are never touched.
 */
export async function removeLeftovers(bench: SandboxBench): Promise<number> {
  const found = await bench.docker.listContainers({
    all: true,
    filters: { label: [`${sandboxLabels.run}=${bench.run}`, `${sandboxLabels.host}=${hostname()}`] },
  });
  for (const c of found) await removeContainer(bench.docker.getContainer(c.Id));
  return found.length;
}
