/**
 * The model-reply text format (docs/original-system.md#a2-reply-format, without its quirks): how the planner model's reply text
 * becomes an action. It is not a wire contract; those are the schemas in `server/src/protocol/`.
 * A reply is one block
 *
 *   <function=repair>
 *     <param name="thought">…</param>
 *     <param name="subplan"><![CDATA[1) …]]></param>
 *     <param name="focus_ids">["func:app/calc.py#add"]</param>
 *   </function>
 *
 * and becomes an `Action`, or a `ProtocolError` (code, detail, hint) the environment shows the
 * model. OpenAI tool calls carrying the same parameters are accepted too. `renderAction` writes an
 * action back so that parsing the rendering gives the action again; the model agent uses it to
 * record steps it did not write itself.
 */
import { actionSchemas, actionTypes, type Action, type ActionType, type ProtocolError } from '../protocol/actions.js';
import { closest } from '../util/closest.js';
import { contract, decodeText, decodeValue, errorFromIssues, protocolError, type Decoded } from './replyParams.js';
import { errorMessage } from '../util/errors.js';

export type ParseResult = { ok: true; action: Action } | { ok: false; error: ProtocolError };

/** One tool call as a chat endpoint returns it; `arguments` is a JSON string (or already parsed). */
export interface ToolCallInput {
  name: string;
  arguments: string | Record<string, unknown>;
}

const actionList = actionTypes.join(', ');
const replyHint = 'Reply with exactly one <function=ACTION>…</function> block and nothing outside it; put your reasoning in the thought parameter.';

function isActionType(name: string): name is ActionType {
  return (actionTypes as readonly string[]).includes(name);
}

function excerpt(text: string): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}

// ---------------------------------------------------------------------------------------------
// Scanning
// ---------------------------------------------------------------------------------------------

const openTag = /<function\s*=\s*["']?([^\s>"']*)["']?\s*>/i;
const closeTag = /^<\/function\s*>/i;
const paramOpen = /^<param\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*>/i;
const cdataOpen = '<![CDATA[';
const cdataClose = ']]>';

/**
 * Reasoning models put a `<think>…</think>` block before their answer (or only its end, when the
 * chat template opened it), and some models wrap the answer in a markdown fence. Neither is part
 * of the reply.
 */
export function stripWrappers(reply: string): string {
  let text = reply.replace(/^\s*<think>[\s\S]*?<\/think>/i, '');
  const endThink = text.search(/<\/think>/i);
  const firstFunction = text.search(/<function/i);
  if (endThink >= 0 && (firstFunction < 0 || endThink < firstFunction)) text = text.slice(endThink + '</think>'.length);
  const fenced = /^\s*```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```\s*$/.exec(text);
  return fenced?.[1] ?? text;
}

interface RawParam {
  name: string;
  value: string;
}

type Scan = { ok: true; name: string; params: RawParam[] } | { ok: false; error: ProtocolError };

/** A parameter's value from `start` (just after its opening tag): CDATA sections verbatim, other text trimmed. */
function scanValue(text: string, start: number, name: string): { value: string; end: number } | ProtocolError {
  const pieces: Array<{ cdata: boolean; text: string }> = [];
  let pos = start;
  for (;;) {
    const rest = text.slice(pos);
    const close = rest.search(/<\/param\s*>/i);
    const cdata = rest.indexOf(cdataOpen);
    if (close < 0 && cdata < 0) {
      return protocolError(
        'extra-text',
        `parameter '${name}' is not closed with </param>`,
        'Close every parameter with </param>; use CDATA for text that contains markup.',
      );
    }
    if (cdata >= 0 && (close < 0 || cdata < close)) {
      pieces.push({ cdata: false, text: rest.slice(0, cdata) });
      const from = pos + cdata + cdataOpen.length;
      const to = text.indexOf(cdataClose, from);
      if (to < 0)
        return protocolError('invalid-param', `parameter '${name}': <![CDATA[ is not closed with ]]>`, 'End every CDATA section with ]]> before </param>.');
      pieces.push({ cdata: true, text: text.slice(from, to) });
      pos = to + cdataClose.length;
      continue;
    }
    pieces.push({ cdata: false, text: rest.slice(0, close) });
    const closing = /^<\/param\s*>/i.exec(rest.slice(close))?.[0] ?? '</param>';
    const end = pos + close + closing.length;
    if (!pieces.some((p) => p.cdata))
      return {
        value: pieces
          .map((p) => p.text)
          .join('')
          .trim(),
        end,
      };
    // Whitespace around CDATA sections is layout; the sections themselves are verbatim.
    const first = pieces[0];
    const last = pieces[pieces.length - 1];
    if (first && !first.cdata) first.text = first.text.trimStart();
    if (last && !last.cdata) last.text = last.text.trimEnd();
    return { value: pieces.map((p) => p.text).join(''), end };
  }
}

function scanBlock(reply: string): Scan {
  const text = stripWrappers(reply);
  const open = openTag.exec(text);
  if (!open) {
    const detail = /<function/i.test(text) ? "found '<function' but not in the form <function=NAME>" : 'the reply contains no <function=…> block';
    return { ok: false, error: protocolError('missing-function-tag', detail, `${replyHint} ACTION is one of ${actionList}.`) };
  }
  const before = text.slice(0, open.index);
  if (before.trim() !== '') return { ok: false, error: protocolError('extra-text', `text before <function=…>: '${excerpt(before)}'`, replyHint) };
  const name = (open[1] ?? '').trim().toLowerCase();
  const params: RawParam[] = [];
  let pos = open.index + open[0].length;
  for (;;) {
    while (pos < text.length && /\s/.test(text.charAt(pos))) pos++;
    const rest = text.slice(pos);
    const close = closeTag.exec(rest);
    if (close) {
      pos += close[0].length;
      break;
    }
    const param = paramOpen.exec(rest);
    if (param) {
      const paramName = (param[1] ?? param[2] ?? '').trim().toLowerCase();
      const value = scanValue(text, pos + param[0].length, paramName);
      if ('code' in value) return { ok: false, error: value };
      params.push({ name: paramName, value: value.value });
      pos = value.end;
      continue;
    }
    if (rest === '') return { ok: false, error: protocolError('missing-function-tag', 'missing </function> terminator', 'End the block with </function>.') };
    if (/^<function\s*=/i.test(rest)) {
      return {
        ok: false,
        error: protocolError(
          'invalid-multi-block',
          'a second <function=…> block starts inside the first',
          'Reply with exactly one <function=…> block per turn; close it with </function>.',
        ),
      };
    }
    if (/^<parameter\s*=/i.test(rest)) {
      return {
        ok: false,
        error: protocolError(
          'extra-text',
          `'${excerpt(rest)}' is not a parameter of this protocol`,
          'Write parameters as <param name="KEY">VALUE</param>, not <parameter=KEY>.',
        ),
      };
    }
    return {
      ok: false,
      error: protocolError(
        'extra-text',
        `text inside the block that is not a <param>: '${excerpt(rest)}'`,
        `${replyHint} Inside the block, write only <param name="KEY">VALUE</param> elements.`,
      ),
    };
  }
  const after = text.slice(pos);
  if (openTag.test(after))
    return {
      ok: false,
      error: protocolError(
        'invalid-multi-block',
        'the reply contains more than one <function=…> block',
        'Reply with exactly one <function=…> block per turn; you will see its result before the next one.',
      ),
    };
  if (after.trim() !== '') return { ok: false, error: protocolError('extra-text', `text after </function>: '${excerpt(after)}'`, replyHint) };
  return { ok: true, name, params };
}

// ---------------------------------------------------------------------------------------------
// From parameters to an action
// ---------------------------------------------------------------------------------------------

function unknownAction(name: string): ProtocolError {
  const guess = closest(name, actionTypes);
  return protocolError('unknown-action', `unknown action '${name}'${guess ? ` (did you mean ${guess}?)` : ''}`, `Use one of the actions ${actionList}.`);
}

/** Builds and checks an action from decoded-on-demand parameters, in the order given. */
function buildAction(type: ActionType, params: ReadonlyArray<{ name: string; decode: (name: string) => Decoded }>): ParseResult {
  const allowed = contract[type];
  const fields: Record<string, unknown> = { type };
  const given = new Map<string, string>();
  for (const { name } of params) {
    const spec = allowed[name];
    if (spec === undefined) {
      const names = Object.keys(allowed);
      const guess = closest(name, names);
      return {
        ok: false,
        error: protocolError(
          'unknown-param',
          `${type} has no parameter '${name}'${guess ? ` (did you mean ${guess}?)` : ''}`,
          `${type} takes only: ${names.join(', ')}.`,
        ),
      };
    }
    const earlier = given.get(spec.field);
    if (earlier !== undefined) {
      const same = earlier === name ? `'${name}' is given twice` : `'${earlier}' and '${name}' are the same parameter`;
      return { ok: false, error: protocolError('duplicate-param', `${type}: ${same}`, 'Give each parameter once.') };
    }
    given.set(spec.field, name);
  }
  for (const { name, decode } of params) {
    const decoded = decode(name);
    if (!decoded.ok) return decoded;
    const spec = allowed[name];
    if (spec) fields[spec.field] = decoded.value;
  }
  const parsed = actionSchemas[type].safeParse(fields);
  if (!parsed.success) return { ok: false, error: errorFromIssues(type, parsed.error.issues, fields) };
  const action = parsed.data;
  if (action.type === 'repair' && action.plan.trim() === '' && action.patches === undefined) {
    return {
      ok: false,
      error: protocolError(
        'missing-required-param',
        'repair needs a subplan: the steps the patch model should carry out',
        'Add <param name="subplan"><![CDATA[1) …\n2) …]]></param> saying what to change and where.',
      ),
    };
  }
  return { ok: true, action };
}

/** Parses a planner reply written in the reply text format. */
export function parseActionText(reply: string): ParseResult {
  const scan = scanBlock(reply);
  if (!scan.ok) return scan;
  if (!isActionType(scan.name)) return { ok: false, error: unknownAction(scan.name) };
  const type = scan.name;
  return buildAction(
    type,
    scan.params.map((p) => ({
      name: p.name,
      decode: (name: string) => decodeText(name, contract[type][name] ?? { field: name, kind: 'text', example: '' }, p.value),
    })),
  );
}

function toolArguments(call: ToolCallInput): { ok: true; args: Record<string, unknown> } | { ok: false; error: ProtocolError } {
  let args: unknown = call.arguments;
  if (typeof args === 'string') {
    if (args.trim() === '') return { ok: true, args: {} };
    try {
      args = JSON.parse(args) as unknown;
    } catch (error) {
      const reason = errorMessage(error);
      return {
        ok: false,
        error: protocolError(
          'invalid-json-param',
          `the arguments of tool call '${call.name}' are not valid JSON: ${reason}`,
          'Send the tool arguments as one JSON object.',
        ),
      };
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      ok: false,
      error: protocolError(
        'invalid-json-param',
        `the arguments of tool call '${call.name}' are not a JSON object`,
        'Send the tool arguments as one JSON object.',
      ),
    };
  }
  return { ok: true, args: args as Record<string, unknown> };
}

/** Parses one OpenAI tool call naming an action. */
export function parseToolCall(call: ToolCallInput): ParseResult {
  const name = call.name.trim().toLowerCase();
  if (!isActionType(name)) return { ok: false, error: unknownAction(name) };
  const parsed = toolArguments(call);
  if (!parsed.ok) return parsed;
  const entries = Object.entries(parsed.args);
  return buildAction(
    name,
    entries.map(([key, value]) => ({
      name: key.toLowerCase(),
      decode: (n: string) => decodeValue(n, contract[name][n] ?? { field: n, kind: 'text', example: '' }, value),
    })),
  );
}

/** Parses the tool calls of one reply: exactly one is an action. */
export function parseToolCalls(calls: readonly ToolCallInput[]): ParseResult {
  const [first, ...more] = calls;
  if (first === undefined)
    return {
      ok: false,
      error: protocolError('missing-function-tag', 'the reply contains no tool call', 'Call exactly one of the tools explore, memory, repair, submit or noop.'),
    };
  if (more.length > 0) {
    return {
      ok: false,
      error: protocolError(
        'invalid-multi-block',
        `the reply contains ${calls.length} tool calls`,
        'Call exactly one tool per turn; you will see its result before the next one.',
      ),
    };
  }
  return parseToolCall(first);
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/** Text as a parameter value: plain when that parses back to the same text, else in CDATA. */
function renderText(value: string): string {
  const plain = value === value.trim() && !/[<>\r\n]/.test(value);
  if (plain) return value;
  // A `]]>` inside the text ends one section and starts the next, as XML does.
  return `${cdataOpen}${value.split(cdataClose).join(`]]${cdataClose}${cdataOpen}>`)}${cdataClose}`;
}

/** JSON as a parameter value; `<` is escaped (valid JSON) so a value can never close the element. */
function renderJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * Each action's defaults, field by field (a whole action given by its type alone may be refused by
 * the action's own rules, as a find without anchors is).
 */
const defaults = new Map<ActionType, Record<string, unknown>>(
  actionTypes.map((type) => {
    const shape =
      (actionSchemas[type] as unknown as { shape?: Record<string, { safeParse: (v: unknown) => { success: boolean; data?: unknown } }> }).shape ?? {};
    const found: Record<string, unknown> = {};
    for (const [field, schema] of Object.entries(shape)) {
      const parsed = schema.safeParse(undefined);
      if (parsed.success && parsed.data !== undefined) found[field] = parsed.data;
    }
    return [type, found];
  }),
);

/** Whether a field holds its schema default, so writing it would only lengthen the reply. */
function isDefault(type: ActionType, field: string, value: unknown): boolean {
  const fallback = defaults.get(type)?.[field];
  return fallback !== undefined && JSON.stringify(fallback) === JSON.stringify(value);
}

/**
 * The parameters an action is written with, in the contract's order, leaving out what is empty or
 * the default: parsing the rendering fills those back in, and a model reading examples and
 * recorded steps sees only what matters.
 */
function actionParams(action: Action): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const fields: Record<string, unknown> = action;
  const done = new Set<string>();
  for (const [name, spec] of Object.entries(contract[action.type])) {
    const value = fields[spec.field];
    if (done.has(spec.field) || value === undefined) continue;
    done.add(spec.field);
    if (Array.isArray(value) && value.length === 0 && spec.field !== 'patches') continue;
    if (spec.field !== 'plan' && isDefault(action.type, spec.field, value)) continue;
    out.push([name, value]);
  }
  return out;
}

/** Writes an action in the reply text format; `parseActionText(renderAction(a))` gives `a` back. */
export function renderAction(action: Action): string {
  const lines = [`<function=${action.type}>`];
  for (const [name, value] of actionParams(action)) {
    const spec = contract[action.type][name];
    const text = spec?.kind === 'text' && typeof value === 'string' ? renderText(value) : typeof value === 'object' ? renderJson(value) : String(value);
    lines.push(`  <param name="${name}">${text}</param>`);
  }
  lines.push('</function>');
  return lines.join('\n');
}

/** Writes an action as an OpenAI tool call; `parseToolCall(renderToolCall(a))` gives `a` back. */
export function renderToolCall(action: Action): { name: ActionType; arguments: string } {
  const args = Object.fromEntries(
    Object.entries(action).filter(([field, value]) => field !== 'type' && value !== undefined && !isDefault(action.type, field, value)),
  );
  return { name: action.type, arguments: JSON.stringify(args) };
}

/** A protocol error as one line, for logs and trajectories. */
export function describeProtocolError(error: ProtocolError): string {
  return `${error.code}: ${error.detail}`;
}
