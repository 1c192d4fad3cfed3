/**
 * What `gp env build` says about one environment, from its record (`gp-env.json`): its
 * interpreter, the day it resolved as of and why, the resolver, the toolchain, every distribution
 * installed, and how long it took. And the bounded pool the builds run in.
 */
import type { BuiltEnv } from '../sandbox/index.js';

/** Lines for one environment: a heading, then indented details. */
export function envReport(built: BuiltEnv): string[] {
  const r = built.record;
  const took =
    built.status === 'built'
      ? `built in ${r.seconds.toFixed(1)} s`
      : `already built (${built.seconds.toFixed(2)} s to find; it took ${r.seconds.toFixed(1)} s on ${r.builtAt.slice(0, 10)})`;
  const tools = Object.entries(r.toolchain)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return [
    `${took}, Python ${r.pythonVersion} (${r.interpreter}), as of ${r.asOf} (${r.asOfWhy}), ${r.resolver}${tools === '' ? '' : `; ${tools}`}`,
    `  ${r.installed.length} installed: ${r.installed.join(' ')}`,
    `  in ${built.paths.venv}`,
  ];
}

/** Runs `work` over `items`, at most `size` at once; results in the items' order. */
export async function inPool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
  return results;
}
