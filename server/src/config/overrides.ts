/**
 * Command-line overrides of an experiment config: the original's named flags plus a generic
 * `--set section.key=value`. A flag overrides only when it is given (the original always emitted
 * `--max-steps`, silently replacing the YAML value: docs/original-system.md#h2-merging-and-flags);
 * `--yaml-only` ignores every override except `--wandb-offline` and says which ones it ignored.
 */
import { parse as parseYamlScalar } from 'yaml';
import type { KeyPath } from '../protocol/index.js';
import { setAt } from '../util/keyPath.js';
import { errorMessage } from '../util/errors.js';

export interface Override {
  /** The flag as the person typed it, for messages (`--max-steps 3`). */
  readonly flag: string;
  readonly path: KeyPath;
  readonly value: unknown;
}

export interface ConfigFlags {
  readonly configFile: string | undefined;
  readonly yamlOnly: boolean;
  readonly printConfig: boolean;
  readonly overrides: readonly Override[];
}

export interface ParsedFlags {
  readonly flags: ConfigFlags;
  /** Arguments that are not config flags (positional files, other commands' flags). */
  readonly rest: readonly string[];
  readonly errors: readonly string[];
}

/** Named flags that take a value, and the key path each one sets. */
const valueFlags: Readonly<Record<string, { path: KeyPath; kind: 'string' | 'int' }>> = {
  '--dataset': { path: ['paths', 'dataset_train'], kind: 'string' },
  '--val-dataset': { path: ['paths', 'dataset_val'], kind: 'string' },
  '--model-path': { path: ['paths', 'planner_model'], kind: 'string' },
  '--cgm-model-path': { path: ['paths', 'cgm_model'], kind: 'string' },
  '--max-steps': { path: ['env', 'max_steps'], kind: 'int' },
  '--run-name': { path: ['logging', 'wandb', 'run_name'], kind: 'string' },
  '--output-dir': { path: ['logging', 'output_dir'], kind: 'string' },
};

/** Overrides that `--yaml-only` keeps, because they choose how to log rather than what to run. */
const keptUnderYamlOnly = new Set(['--wandb-offline']);

export const configFlagHelp = [
  '--config-file FILE        experiment YAML (or give it as the first argument)',
  '--yaml-only               ignore command-line overrides except --wandb-offline',
  '--print-config            print the resolved config instead of writing the run folder',
  '--dataset FILE            paths.dataset_train',
  '--val-dataset FILE        paths.dataset_val',
  '--model-path DIR          paths.planner_model',
  '--cgm-model-path DIR      paths.cgm_model',
  '--max-steps N             env.max_steps',
  '--run-name NAME           logging.wandb.run_name (the run folder name)',
  '--output-dir DIR          logging.output_dir',
  '--wandb-offline           logging.wandb.offline = true',
  "--allow-mount-root DIR    sandbox.allowed_mount_roots (repeatable; replaces the config's list)",
  '--set KEY=VALUE           any key, e.g. --set training.lr=1e-5 (VALUE is read as YAML)',
];

export function parseConfigFlags(argv: readonly string[]): ParsedFlags {
  let configFile: string | undefined;
  let yamlOnly = false;
  let printConfig = false;
  const overrides: Override[] = [];
  const rest: string[] = [];
  const errors: string[] = [];
  const mountRoots: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string | undefined => {
      if (eq > 0) return arg.slice(eq + 1);
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        errors.push(`${name} needs a value.`);
        return undefined;
      }
      i++;
      return next;
    };
    if (name === '--config-file') configFile = takeValue() ?? configFile;
    else if (name === '--yaml-only') yamlOnly = true;
    else if (name === '--print-config') printConfig = true;
    else if (name === '--wandb-offline') overrides.push({ flag: '--wandb-offline', path: ['logging', 'wandb', 'offline'], value: true });
    else if (name === '--allow-mount-root') {
      const v = takeValue();
      if (v !== undefined) mountRoots.push(v);
    } else if (name === '--set') {
      const v = takeValue();
      if (v !== undefined) {
        const parsed = parseSet(v);
        if (typeof parsed === 'string') errors.push(parsed);
        else overrides.push(parsed);
      }
    } else if (name in valueFlags) {
      const spec = valueFlags[name];
      const v = takeValue();
      if (spec && v !== undefined) {
        if (spec.kind === 'int') {
          const n = Number(v);
          if (!Number.isInteger(n)) errors.push(`${name} must be an integer, not '${v}'.`);
          else overrides.push({ flag: `${name} ${v}`, path: spec.path, value: n });
        } else {
          overrides.push({ flag: `${name} ${v}`, path: spec.path, value: v });
        }
      }
    } else rest.push(arg);
  }
  // Repeated, the flag gives one list: the roots a person allowed for this launch.
  if (mountRoots.length > 0)
    overrides.push({ flag: mountRoots.map((r) => `--allow-mount-root ${r}`).join(' '), path: ['sandbox', 'allowed_mount_roots'], value: mountRoots });
  return { flags: { configFile, yamlOnly, printConfig, overrides }, rest, errors };
}

function parseSet(spec: string): Override | string {
  const eq = spec.indexOf('=');
  if (eq <= 0) return `--set expects KEY=VALUE (for example --set env.max_steps=8), not '${spec}'.`;
  const key = spec.slice(0, eq).trim();
  if (!/^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/.test(key)) return `--set key '${key}' must be dotted names such as training.lr.`;
  // These names would reach Object.prototype through the merge instead of naming a config key.
  if (key.split('.').some((seg) => seg === '__proto__' || seg === 'constructor' || seg === 'prototype')) {
    return `--set key '${key}' is not a config key.`;
  }
  let value: unknown;
  try {
    value = parseYamlScalar(spec.slice(eq + 1));
  } catch (err) {
    return `--set ${key}: the value is not valid YAML (${errorMessage(err)}).`;
  }
  return { flag: `--set ${spec}`, path: key.split('.'), value };
}

/** Applies overrides on top of the YAML value; returns the merged value and what was ignored. */
export function applyOverrides(
  yamlValue: Record<string, unknown>,
  flags: ConfigFlags,
): { merged: Record<string, unknown>; applied: Override[]; ignored: Override[] } {
  const merged = structuredClone(yamlValue);
  const applied: Override[] = [];
  const ignored: Override[] = [];
  for (const o of flags.overrides) {
    if (flags.yamlOnly && !keptUnderYamlOnly.has(o.flag)) {
      ignored.push(o);
      continue;
    }
    setAt(merged, o.path, o.value);
    applied.push(o);
  }
  return { merged, applied, ignored };
}

/** The last override whose key path contains `path` (an override of a section sets every key in it). */
export function flagFor(path: KeyPath, applied: readonly Override[]): string | undefined {
  let flag: string | undefined;
  for (const o of applied) {
    if (o.path.length <= path.length && o.path.every((seg, i) => String(seg) === String(path[i]))) flag = o.flag;
  }
  return flag;
}
