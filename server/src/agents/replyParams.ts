/**
 * The parameters of the model-reply text format: which parameters each action takes, how a
 * parameter's text (or a tool call's JSON value) becomes a typed field, and how a zod issue
 * becomes a protocol error a model can act on. `replyFormat.ts` does the scanning and rendering;
 * this file knows the fields. Unlike the original (docs/original-system.md#a2-reply-format), values are decoded by what the field
 * expects, never by what the text looks like, so free text stays text and a bad boolean is an
 * error, not `true`.
 */
import type { z } from 'zod';
import { exploreActionSchema, memoryActionSchema, type ActionType, type ProtocolError, type ProtocolErrorCode } from '../protocol/actions.js';
import { isRecord } from '../util/isRecord.js';
import { errorMessage } from '../util/errors.js';

/**
 * How a parameter's value is read. `text`: taken as written. `int`, `bool`, `enum`: one scalar,
 * strictly. `ids`: a JSON list of strings, or one bare id. `json`: JSON, a lone object standing
 * for a one-element list.
 */
export type ParamKind = 'text' | 'int' | 'bool' | 'enum' | 'ids' | 'json';

export interface ParamSpec {
  /** The action field the parameter fills (`subplan` fills `plan`). */
  field: string;
  kind: ParamKind;
  values?: readonly string[];
  /** A valid value, for hints. */
  example: string;
  /** What a valid value is, in words, when the kind alone does not say it (integer ranges). */
  expected?: string;
}

function intRange(schema: { minValue: number | null; maxValue: number | null }): string {
  return `an integer from ${String(schema.minValue ?? '')} to ${String(schema.maxValue ?? '')}`;
}

const thought: ParamSpec = { field: 'thought', kind: 'text', example: 'why this action' };
const plan: ParamSpec = { field: 'plan', kind: 'text', example: '<![CDATA[1) …\n2) …]]>' };

/** Every parameter each action accepts, by wire name (lower case). */
export const contract: Record<ActionType, Readonly<Record<string, ParamSpec>>> = {
  explore: {
    thought,
    op: { field: 'op', kind: 'enum', values: exploreActionSchema.shape.op.unwrap().options, example: 'find' },
    anchors: { field: 'anchors', kind: 'json', example: '[{"kind": "function", "text": "add"}]' },
    nodes: { field: 'nodes', kind: 'ids', example: '["func:app/calc.py#add"]' },
    hop: { field: 'hop', kind: 'int', example: '1', expected: intRange(exploreActionSchema.shape.hop.unwrap()) },
    limit: { field: 'limit', kind: 'int', example: '20', expected: intRange(exploreActionSchema.shape.limit.unwrap()) },
  },
  memory: {
    thought,
    target: { field: 'target', kind: 'enum', values: memoryActionSchema.shape.target.unwrap().options, example: 'explore' },
    scope: { field: 'scope', kind: 'enum', values: memoryActionSchema.shape.scope.unwrap().options, example: 'turn' },
    intent: { field: 'intent', kind: 'enum', values: memoryActionSchema.shape.intent.unwrap().options, example: 'commit' },
    selector: { field: 'selector', kind: 'text', example: 'latest' },
  },
  repair: {
    thought,
    subplan: plan,
    plan,
    focus_ids: { field: 'focus_ids', kind: 'ids', example: '["func:app/calc.py#add"]' },
    apply: { field: 'apply', kind: 'bool', example: 'true' },
    patches: { field: 'patches', kind: 'json', example: '[{"edits": [{"path": "app/calc.py", "start": 2, "end": 2, "new_text": "    return a + b\\n"}]}]' },
  },
  submit: { thought },
  noop: { thought },
};

/** The wire name a field is written under (the first parameter that fills it). */
export function wireName(type: ActionType, field: string): string {
  return Object.entries(contract[type]).find(([, spec]) => spec.field === field)?.[0] ?? field;
}

export function protocolError(code: ProtocolErrorCode, detail: string, hint: string): ProtocolError {
  return { code, detail, hint };
}

export type Decoded = { ok: true; value: unknown } | { ok: false; error: ProtocolError };

const booleans: Readonly<Record<string, boolean>> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };

function expectedText(spec: ParamSpec): string {
  if (spec.expected !== undefined) return spec.expected;
  switch (spec.kind) {
    case 'text':
      return 'text';
    case 'int':
      return 'an integer';
    case 'bool':
      return 'true or false';
    case 'enum':
      return `one of ${(spec.values ?? []).join(', ')}`;
    case 'ids':
      return 'a JSON list of node ids';
    case 'json':
      return 'a JSON list';
  }
}

function invalid(name: string, spec: ParamSpec, got: string): Decoded {
  const shown = got.length > 60 ? `${got.slice(0, 57)}...` : got;
  return {
    ok: false,
    error: protocolError(
      'invalid-param',
      `parameter '${name}' must be ${expectedText(spec)}, got '${shown}'`,
      `Write ${name} as ${expectedText(spec)}, e.g. <param name="${name}">${spec.example}</param>.`,
    ),
  };
}

/** A scalar may come quoted (`"find"`); the quotes are not part of it. */
function unquote(text: string): string {
  const t = text.trim();
  return t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) ? t.slice(1, -1).trim() : t;
}

function parseJson(name: string, spec: ParamSpec, text: string): Decoded {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = errorMessage(error);
    return {
      ok: false,
      error: protocolError(
        'invalid-json-param',
        `parameter '${name}' is not valid JSON: ${reason}`,
        `Write ${name} as JSON, e.g. <param name="${name}">${spec.example}</param>.`,
      ),
    };
  }
}

/** Decodes a parameter written as text (the reply text format, or a string in a tool call). */
export function decodeText(name: string, spec: ParamSpec, text: string): Decoded {
  switch (spec.kind) {
    case 'text':
      return { ok: true, value: text };
    case 'int': {
      const t = unquote(text);
      return /^[+-]?\d+$/.test(t) ? { ok: true, value: Number.parseInt(t, 10) } : invalid(name, spec, text);
    }
    case 'bool': {
      const value = booleans[unquote(text).toLowerCase()];
      return value === undefined ? invalid(name, spec, text) : { ok: true, value };
    }
    case 'enum': {
      const t = unquote(text).toLowerCase();
      return spec.values?.includes(t) ? { ok: true, value: t } : invalid(name, spec, text);
    }
    case 'ids': {
      const t = text.trim();
      if (t === '') return { ok: true, value: [] };
      if (!t.startsWith('[') && !t.startsWith('"')) return { ok: true, value: [t] };
      const parsed = parseJson(name, spec, t);
      return parsed.ok && typeof parsed.value === 'string' ? { ok: true, value: [parsed.value] } : parsed;
    }
    case 'json': {
      const t = text.trim();
      if (t === '') return { ok: true, value: [] };
      const parsed = parseJson(name, spec, t);
      return parsed.ok ? decodeValue(name, spec, parsed.value) : parsed;
    }
  }
}

/** Decodes a parameter given as a JSON value (a tool call's argument). */
export function decodeValue(name: string, spec: ParamSpec, value: unknown): Decoded {
  if (typeof value === 'string') return decodeText(name, spec, value);
  switch (spec.kind) {
    case 'text':
      return typeof value === 'number' || typeof value === 'boolean' ? { ok: true, value: String(value) } : invalid(name, spec, JSON.stringify(value));
    case 'bool':
      return typeof value === 'number' && (value === 0 || value === 1) ? { ok: true, value: value === 1 } : { ok: true, value };
    case 'json':
      return { ok: true, value: isRecord(value) ? [value] : value };
    default:
      // Numbers, lists and the rest are checked by the action's schema, which names what it expected.
      return { ok: true, value };
  }
}

type Issue = z.core.$ZodIssue;

/** What a failed check expected, in words. */
function expectedOf(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`;
    case 'too_big':
      return issue.origin === 'array' ? `a list of at most ${String(issue.maximum)} item(s)` : `at most ${String(issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'array') return `a list of at least ${String(issue.minimum)} item(s)`;
      if (issue.origin === 'string') return 'a non-empty string';
      return `at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_union':
      return 'a patch, either {"edits": [{"path", "start", "end", "new_text"}]} or {"diff": "…"}';
    default:
      return issue.message;
  }
}

/** ` (got …)` for the value at `path`, when there is one to show. */
function gotText(input: unknown, path: readonly PropertyKey[]): string {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return '';
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  if (value === undefined) return '';
  const shown = JSON.stringify(value);
  return ` (got ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown})`;
}

function pathText(type: ActionType, path: readonly PropertyKey[]): string {
  const [field, ...rest] = path;
  const head = typeof field === 'string' ? wireName(type, field) : '';
  return head + rest.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/**
 * The protocol error for a candidate action its schema refused. The explore refinements (what each
 * op needs) are missing parameters; every other issue is a value of the wrong type or range.
 */
export function errorFromIssues(type: ActionType, issues: readonly Issue[], input?: unknown): ProtocolError {
  const required = (i: Issue): boolean => i.code === 'custom' && i.path.length <= 1;
  const typed = issues.find((i) => !required(i));
  if (typed !== undefined) {
    const where = pathText(type, typed.path);
    const name = wireName(type, String(typed.path[0] ?? ''));
    const spec = contract[type][name];
    const expected = typed.path.length === 1 && spec?.expected !== undefined ? spec.expected : expectedOf(typed);
    const problem = typed.code === 'custom' ? typed.message : `it must be ${expected}`;
    return protocolError(
      'invalid-param',
      `parameter '${where}' is invalid: ${problem}${gotText(input, typed.path)}`,
      `Fix ${where}: ${problem}${spec ? `, e.g. <param name="${name}">${spec.example}</param>` : ''}.`,
    );
  }
  const custom = issues[0];
  const name = custom ? pathText(type, custom.path) : '';
  const spec = contract[type][name];
  return protocolError(
    'missing-required-param',
    custom ? `${type}: ${custom.message}` : `${type}: a required parameter is missing`,
    spec ? `Add <param name="${name}">${spec.example}</param>${name === 'nodes' ? ', with ids shown in the observations' : ''}.` : 'Add the missing parameter.',
  );
}
