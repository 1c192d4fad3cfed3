/**
 * The flags of `gp rollout` and `gp eval` beyond the config flags, and the config overrides five of
 * them stand for. The CLI parses a person's command line with them, and the editor's launch plan
 * parses the command line it built with the same table, so both reach the same config.
 */
import type { Override } from '../config/index.js';

/** `util.parseArgs` options of the rollout commands (the config flags are parsed before, by `parseConfigFlags`). */
export const rolloutOptions = {
  config: { type: 'string' },
  agent: { type: 'string' },
  fallback: { type: 'boolean' },
  task: { type: 'string', multiple: true },
  limit: { type: 'string' },
  parallel: { type: 'string' },
  attempts: { type: 'string' },
  backend: { type: 'string' },
  'run-dir': { type: 'string' },
  resume: { type: 'boolean' },
  json: { type: 'boolean' },
  ray: { type: 'string' },
  'service-host': { type: 'string' },
  /** A fork (launch/forkLaunch.ts): replay this trajectory's steps before `--fork-step`, then go on live. */
  'fork-of': { type: 'string' },
  'fork-step': { type: 'string' },
} as const;

export interface RolloutFlagValues {
  readonly agent?: string | undefined;
  readonly parallel?: string | undefined;
  readonly attempts?: string | undefined;
  readonly backend?: string | undefined;
  readonly fallback?: boolean | undefined;
}

/**
 * The overrides `--parallel`, `--attempts`, `--agent`, `--backend` and `--fallback` stand for; a value that is
 * not a positive integer is an error in `errors`, named by its flag.
 */
export function rolloutFlagOverrides(v: RolloutFlagValues, errors: string[]): Override[] {
  const overrides: Override[] = [];
  const int = (name: string, value: string | undefined, path: string[]) => {
    if (value === undefined) return;
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < 1) errors.push(`${name} needs a positive integer, not '${value}'.`);
    else overrides.push({ flag: `${name} ${n}`, path, value: n });
  };
  int('--parallel', v.parallel, ['rollout', 'parallel']);
  int('--attempts', v.attempts, ['rollout', 'attempts']);
  if (v.agent !== undefined) overrides.push({ flag: `--agent ${v.agent}`, path: ['rollout', 'agent'], value: v.agent });
  if (v.backend !== undefined) overrides.push({ flag: `--backend ${v.backend}`, path: ['sandbox', 'backend'], value: v.backend });
  if (v.fallback === true) overrides.push({ flag: '--fallback', path: ['rollout', 'fallback_to_rule'], value: true });
  return overrides;
}
