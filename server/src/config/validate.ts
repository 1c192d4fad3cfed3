/**
 * Validates a plain config value against the emitted JSON Schema with ajv (`experimentValidators.ts`)
 * and turns every ajv error into a Finding on the right key path: unknown keys with the closest
 * known key, type/enum/range errors on the value, missing required keys on their parent key.
 *
 * An unknown key is an error: its setting silently keeps its default (`planer_backend` leaves the
 * planner backend as it was), so a launch must not go ahead on it. A config that sets
 * `experiment.allow_unknown_keys: true` (one written for a newer Graph Planner, say) gets them as
 * warnings instead (docs/editing-configs.md).
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { finding, type Finding, type Fix, type KeyPath } from '../protocol/index.js';
import { closest } from '../util/closest.js';
import { formatKeyPath } from '../util/keyPath.js';
import { describeRange, schemaAt, type JsonSchemaNode } from './jsonSchema.js';
import { fillExperimentDefaults, validateExperiment } from './experimentValidators.js';

/**
 * Fills in the schema's defaults, in place, on a value the caller owns: the typed config, as zod
 * would parse it, at a fraction of the cost (a test checks both agree). False when the value is
 * invalid (the value may then hold some defaults already).
 */
export function fillDefaultsInPlace(value: unknown): boolean {
  return fillExperimentDefaults(value);
}

export function pointerToPath(pointer: string): KeyPath {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return String(v);
}

function typeWord(t: string): string {
  switch (t) {
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'null':
      return 'null';
    default:
      return t;
  }
}

/** Converts a value of the wrong type into the intended one when the intent is unambiguous. */
function coerce(value: unknown, types: readonly string[]): unknown {
  if (typeof value === 'string') {
    const n = Number(value.trim());
    if ((types.includes('integer') && Number.isInteger(n)) || (types.includes('number') && Number.isFinite(n))) {
      if (value.trim() !== '') return n;
    }
    if (types.includes('boolean') && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  }
  if (typeof value === 'number' && types.includes('integer') && !Number.isInteger(value)) return Math.round(value);
  return undefined;
}

/** Whether the value opts out of unknown keys being errors (`experiment.allow_unknown_keys: true`). */
function allowsUnknownKeys(value: unknown): boolean {
  const experiment = typeof value === 'object' && value !== null ? (value as { experiment?: unknown }).experiment : undefined;
  return typeof experiment === 'object' && experiment !== null && (experiment as { allow_unknown_keys?: unknown }).allow_unknown_keys === true;
}

function unknownKeyFinding(e: ErrorObject, path: KeyPath, where: string, allowUnknown: boolean): Finding {
  const key = String((e.params as { additionalProperty: string }).additionalProperty);
  const known = Object.keys((e.parentSchema as JsonSchemaNode | undefined)?.properties ?? {});
  const guess = closest(key, known);
  const fixes: Fix[] = [];
  if (guess) fixes.push({ title: `Rename '${key}' to '${guess}'`, preferred: true, edits: [{ op: 'rename', path: [...path, key], newKey: guess }] });
  fixes.push({ title: `Remove '${key}'`, edits: [{ op: 'remove', path: [...path, key] }] });
  const section = path.length ? `in ${where}` : 'at the top level';
  const consequence = allowUnknown
    ? ' It is ignored (experiment.allow_unknown_keys is true).'
    : ' Its setting would silently keep the default, so this blocks a launch (experiment.allow_unknown_keys: true allows unknown keys).';
  return finding({
    code: 'schema/unknown-key',
    severity: allowUnknown ? 'warning' : 'error',
    message: `Unknown key '${key}' ${section}.${guess ? ` Did you mean '${guess}'?` : ` Known keys: ${known.join(', ')}.`}${consequence}`,
    path: [...path, key],
    target: 'key',
    fixes,
  });
}

function errorToFinding(e: ErrorObject, allowUnknown: boolean): Finding | undefined {
  const path = pointerToPath(e.instancePath);
  const where = formatKeyPath(path) || 'the top level';
  switch (e.keyword) {
    case 'additionalProperties':
      return unknownKeyFinding(e, path, where, allowUnknown);
    case 'required': {
      const missing = String((e.params as { missingProperty: string }).missingProperty);
      return finding({
        code: 'schema/required',
        severity: 'error',
        message: `${where} is missing the required key '${missing}'.`,
        path,
        target: 'key',
      });
    }
    case 'type': {
      const types = ([] as string[]).concat((e.params as { type: string | string[] }).type);
      // The null branch of a nullable field always fails beside the real error; it adds nothing.
      if (types.length === 1 && types[0] === 'null' && e.schemaPath.includes('/anyOf/')) return undefined;
      const fixed = coerce(e.data, types);
      const fixes: Fix[] =
        fixed === undefined ? [] : [{ title: `Set ${where} to ${JSON.stringify(fixed)}`, preferred: true, edits: [{ op: 'set', path, value: fixed }] }];
      return finding({
        code: 'schema/type',
        severity: 'error',
        message: `${where} must be ${types.map(typeWord).join(' or ')}, not ${describeValue(e.data)}.`,
        path,
        fixes,
      });
    }
    case 'enum': {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      const guess = typeof e.data === 'string' ? closest(e.data, allowed.map(String)) : undefined;
      return finding({
        code: 'schema/enum',
        severity: 'error',
        message: `${where} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, not ${describeValue(e.data)}.${guess ? ` Did you mean '${guess}'?` : ''}`,
        path,
        fixes: guess ? [{ title: `Set ${where} to '${guess}'`, preferred: true, edits: [{ op: 'set', path, value: guess }] }] : [],
      });
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const node = schemaAt(path);
      const range = node ? describeRange(node) : undefined;
      const limit = (e.params as { limit: number }).limit;
      const fixValue = e.keyword === 'minimum' || e.keyword === 'maximum' ? limit : undefined;
      return finding({
        code: 'schema/range',
        severity: 'error',
        message: `${where} is ${describeValue(e.data)} but must be ${range ?? `${e.message ?? ''}`}.`,
        path,
        fixes: fixValue === undefined ? [] : [{ title: `Set ${where} to ${fixValue}`, edits: [{ op: 'set', path, value: fixValue }] }],
      });
    }
    case 'minLength':
      return finding({ code: 'schema/range', severity: 'error', message: `${where} must not be empty.`, path });
    case 'pattern':
    case 'format':
      return finding({
        code: 'schema/format',
        severity: 'error',
        message: `${where} is ${describeValue(e.data)}, which is not a valid value${e.keyword === 'format' ? ` (${String((e.params as { format: string }).format)})` : ''}.`,
        path,
      });
    case 'anyOf':
    case 'oneOf':
      // The branch errors that follow say what is wrong in detail.
      return undefined;
    default:
      return finding({ code: `schema/${e.keyword}`, severity: 'error', message: `${where} ${e.message ?? 'is not valid'}.`, path });
  }
}

export interface SchemaValidation {
  readonly findings: Finding[];
  /** Key paths whose values are invalid, to prune before typed parsing. */
  readonly invalidPaths: KeyPath[];
}

export function validateAgainstSchema(value: unknown): SchemaValidation {
  if (validateExperiment(value)) return { findings: [], invalidPaths: [] };
  const findings: Finding[] = [];
  const invalidPaths: KeyPath[] = [];
  const seen = new Set<string>();
  const allowUnknown = allowsUnknownKeys(value);
  for (const e of validateExperiment.errors ?? []) {
    const f = errorToFinding(e, allowUnknown);
    if (!f) continue;
    const key = `${f.code}|${f.path.join('\u0000')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(f);
    if (f.code !== 'schema/required') invalidPaths.push(f.path);
  }
  return { findings, invalidPaths };
}
