/**
 * The one check of an experiment config, shared by the language server, `gp config check` and
 * every command that launches from a config: syntax → JSON Schema → typed config (defaults
 * applied) → preflight, run once on the merged value (the YAML with any command-line overrides on
 * top), every finding located in the YAML or on the flag that set its value. The fast part is
 * synchronous and pure (it runs after every edit); disk rules are separate.
 */
import type { Finding, KeyPath } from '../protocol/index.js';
import { flagFor, type Override } from './overrides.js';
import { reparse } from './reparse.js';
import { wholeFileFinding } from './textCheck.js';
import { preflight, preflightDisk } from './preflight.js';
import { experimentConfigSchema, type ExperimentConfig } from './schema.js';
import { fillDefaultsInPlace, validateAgainstSchema } from './validate.js';
import { findingRange, relatedRanges } from './findingAnchor.js';
import { withoutPlaceholderPaths } from './placeholderPaths.js';
import { clipToLine, parseYamlSource, type OffsetRange, type YamlSource } from './yamlSource.js';
import { deleteAt } from '../util/keyPath.js';

export interface LocatedFinding extends Finding {
  /** Where the finding sits in the YAML text (`findingAnchor.ts`: on its key, or the nearest written one). */
  readonly range: OffsetRange;
  readonly relatedRanges: readonly { readonly range: OffsetRange; readonly message: string }[];
  /** The command-line flag that set the value this finding is about; absent when the YAML (or a default) did. */
  readonly flag?: string;
}

export interface ConfigCheck {
  readonly source: YamlSource;
  /** The typed config with defaults, built from the valid parts of the merged value. */
  readonly config: ExperimentConfig | undefined;
  readonly findings: readonly LocatedFinding[];
  /** The overrides merged on top of the YAML (none in the editor). */
  readonly applied: readonly Override[];
}

/**
 * Checks a text. With `previous` (the source of the document's last version, consumed), an edit of
 * plain scalars patches the previous tree, and an edit inside one top-level section re-parses only
 * that section, instead of parsing everything again.
 */
export function checkConfigText(text: string, previous?: YamlSource): ConfigCheck {
  const source = (previous && reparse(previous, text)) ?? parseYamlSource(text);
  return checkSource(source, source.value, []);
}

/**
 * Checks `merged` (the source's value with `applied` overrides on top, or the value itself) and
 * locates each finding: on the flag when an override set the value it is about, else in the YAML.
 * Schema and preflight run exactly once, on the merged value, so a flag that fixes a YAML value
 * also removes its finding, and a flag that breaks one is blamed for it.
 */
export function checkSource(source: YamlSource, merged: unknown, applied: readonly Override[]): ConfigCheck {
  // A file that is not text gets one finding and no parse noise; an empty one gets one note (textCheck.ts).
  const wholeFile = wholeFileFinding(source);
  if (wholeFile?.severity === 'error') return { source, config: undefined, findings: [wholeFile], applied };
  if (wholeFile !== undefined && applied.length === 0) return { source, config: typedConfig({}, []), findings: [wholeFile], applied };
  const findings: LocatedFinding[] = source.problems.map((p) => ({
    code: p.code,
    severity: p.severity,
    message: p.message,
    path: [],
    related: [],
    fixes: [],
    range: clipToLine(source.text, p.range),
    relatedRanges: [],
  }));
  if (source.value === undefined || merged === undefined) return { source, config: undefined, findings, applied };
  const schema = validateAgainstSchema(merged);
  for (const f of schema.findings) findings.push(locate(source, f, applied));
  const config = typedConfig(merged, schema.invalidPaths);
  if (config) for (const f of preflight(config)) findings.push(locate(source, f, applied));
  return { source, config, findings, applied };
}

export async function checkConfigDisk(check: ConfigCheck, baseDir: string): Promise<LocatedFinding[]> {
  if (!check.config) return [];
  return locateDiskFindings(check, await preflightDisk(check.config, baseDir));
}

/**
 * The disk rules' findings of a check, located; those about placeholder paths the config never
 * names are left out or say that the default applies (`placeholderPaths.ts`).
 */
export function locateDiskFindings(check: Pick<ConfigCheck, 'source' | 'applied'>, found: readonly Finding[]): LocatedFinding[] {
  return withoutPlaceholderPaths(check.source.value, check.applied, found).map((f) => locate(check.source, f, check.applied));
}

/**
 * The typed config of a document with its invalid values removed, so one typo does not hide every
 * other check. The emitted JSON Schema (generated from the zod schema) fills in the defaults; zod
 * itself is the fallback for anything the schema fill does not accept.
 */
export function typedConfig(value: unknown, invalidPaths: readonly KeyPath[]): ExperimentConfig | undefined {
  // One copy serves both the pruning and the default filling, which both write to it.
  const copy = structuredClone(value);
  for (const p of invalidPaths) deleteAt(copy, p);
  if (fillDefaultsInPlace(copy)) return copy as ExperimentConfig;
  const parsed = experimentConfigSchema.safeParse(copy);
  return parsed.success ? parsed.data : undefined;
}

export function locate(source: YamlSource, f: Finding, applied: readonly Override[] = []): LocatedFinding {
  const flag = flagFor(f.path, applied);
  return {
    ...f,
    range: findingRange(source, f),
    relatedRanges: relatedRanges(source, f.related),
    ...(flag === undefined ? {} : { flag }),
  };
}
