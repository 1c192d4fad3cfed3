/**
 * Resolves a config for a launch in one pass: the YAML is parsed once, the command-line overrides
 * are merged on top of it, and the merged value is validated, filled with defaults and preflighted
 * once (`checkSource`). Every command that takes a config goes through here (through
 * `launch/loadConfig.ts`), so `gp config check`, `gp config resolve`, `gp rollout`, `gp eval` and
 * `gp task test` give the same verdict on the same file. The parsed source comes back with the
 * result, so no caller parses the YAML again to place a finding.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { stringify } from 'yaml';
import { checkSource, type LocatedFinding } from './check.js';
import { applyOverrides, type ConfigFlags, type Override } from './overrides.js';
import type { ExperimentConfig } from './schema.js';
import { parseYamlSource, type YamlSource } from './yamlSource.js';
import { isRecord } from '../util/isRecord.js';

export interface ResolveInput {
  /** The YAML text; empty when the command runs on the defaults alone. */
  readonly text: string;
  readonly flags: ConfigFlags;
  /** Relative paths in the config resolve against this folder. */
  readonly baseDir: string;
}

/** What a config means for a launch, and whether a launch may use it. */
export type Verdict = 'ok' | 'warnings' | 'errors';

export interface Resolution {
  /** The parsed YAML, for placing findings (file:line:col) and for editing fixes. */
  readonly source: YamlSource;
  /** The typed config with defaults and absolute paths; undefined when the YAML does not parse. */
  readonly config: ExperimentConfig | undefined;
  /** Every finding once, located in the YAML or on the flag that set the value it is about. */
  readonly findings: readonly LocatedFinding[];
  readonly applied: readonly Override[];
  /** Overrides that `--yaml-only` dropped. */
  readonly ignored: readonly Override[];
  readonly verdict: Verdict;
}

export function resolveConfig(input: ResolveInput): Resolution {
  const source = parseYamlSource(input.text);
  const value = source.value;
  const { merged, applied, ignored } = applyOverrides(isRecord(value) ? value : {}, input.flags);
  const check = checkSource(source, value === undefined ? undefined : merged, applied);
  const config = check.config && absolutisePaths(check.config, input.baseDir);
  const findings = check.findings;
  return { source, config, findings, applied, ignored, verdict: config === undefined ? 'errors' : verdictOf(findings) };
}

/** Errors refuse a launch; warnings and information do not. */
export function verdictOf(findings: readonly { readonly severity: string }[]): Verdict {
  if (findings.some((f) => f.severity === 'error')) return 'errors';
  return findings.some((f) => f.severity === 'warning') ? 'warnings' : 'ok';
}

export function renderConfigYaml(config: ExperimentConfig): string {
  return stringify(config, { lineWidth: 0, nullStr: 'null' });
}

/**
 * Makes file paths absolute against the base folder so the resolved config means the same thing
 * from any working directory. A model value that does not exist on disk and does not look like a
 * relative path (`Qwen/Qwen3-14B`) is kept: it is a name the serving backend resolves.
 */
export function absolutisePaths(config: ExperimentConfig, baseDir: string): ExperimentConfig {
  const abs = (p: string) => (isAbsolute(p) ? p : resolvePath(baseDir, p));
  const absIfLocal = (p: string) => {
    if (isAbsolute(p)) return p;
    const full = resolvePath(baseDir, p);
    return p.startsWith('.') || existsSync(full) ? full : p;
  };
  const absOpt = (p: string | null) => (p === null ? null : abs(p));
  const absLocalOpt = (p: string | null) => (p === null ? null : absIfLocal(p));
  return {
    ...config,
    paths: {
      dataset_train: abs(config.paths.dataset_train),
      dataset_val: absOpt(config.paths.dataset_val),
      planner_model: absIfLocal(config.paths.planner_model),
      planner_tokenizer: absLocalOpt(config.paths.planner_tokenizer),
      cgm_model: absIfLocal(config.paths.cgm_model),
      cgm_tokenizer: absLocalOpt(config.paths.cgm_tokenizer),
    },
    env: { ...config.env, docker_manifest: absOpt(config.env.docker_manifest) },
    sandbox: { ...config.sandbox, allowed_mount_roots: config.sandbox.allowed_mount_roots.map(abs) },
    training: { ...config.training, resume_from: absOpt(config.training.resume_from) },
    logging: { ...config.logging, output_dir: abs(config.logging.output_dir) },
  };
}
