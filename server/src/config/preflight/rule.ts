/**
 * The shape every preflight rule has, and the small builders rules share for their findings. A
 * rule is a pure function from a parsed config to findings; `preflight.ts` runs them and turns a
 * rule that throws into a finding, so a bug in one rule never hides the others.
 */
import type { ExperimentConfig } from '../schema.js';
import type { ConfigEdit, Finding, Fix, KeyPath, Related } from '../../protocol/index.js';

/** A check that reads only the config; it runs on every keystroke, so it must be cheap. */
export interface Rule {
  /** A short kebab-case name, used in the `preflight/internal` finding when the rule throws. */
  readonly name: string;
  readonly check: (config: ExperimentConfig) => readonly Finding[];
}

/** A check that reads the file system; paths in the config resolve against `baseDir`. */
export interface DiskRule {
  readonly name: string;
  readonly check: (config: ExperimentConfig, baseDir: string) => Promise<readonly Finding[]>;
}

/** A fix made of `set` edits, the kind almost every preflight fix is. */
export function setFix(title: string, sets: ReadonlyArray<readonly [KeyPath, unknown]>, preferred = false): Fix {
  const edits: ConfigEdit[] = sets.map(([path, value]) => ({ op: 'set', path: [...path], value }));
  return preferred ? { title, preferred: true, edits } : { title, edits };
}

export function related(path: KeyPath, message: string): Related {
  return { path: [...path], message };
}
