/**
 * The reply as one JSON object, for structured output: `{"function": ACTION, "arguments": {…}}`.
 * The server is sent a JSON Schema (one branch per action, each with the action's parameter schema
 * from toolSchemas.ts) and constrains generation to it, so a small model cannot write a reply
 * that fails to scan; what it writes is still checked against the action's contract, exactly as a
 * tool call is (replyFormat.ts). A reply cut off at the token limit is not valid JSON and becomes a
 * protocol error like any other.
 */
import { actionTypes, type Action } from '../protocol/actions.js';
import type { ResponseFormat } from '../protocol/modelApi.js';
import { isRecord } from '../util/isRecord.js';
import { protocolError } from './replyParams.js';
import { parseToolCall, renderToolCall, type ParseResult } from './replyFormat.js';
import { actionParametersSchema } from './toolSchemas.js';

/** How structured output is asked for: OpenAI, vLLM and SGLang's `json_schema`, or llama-cpp-python's `json_object` with a schema. */
export type StructuredOutput = 'json_schema' | 'json_object';

/**
 * The arguments of `explore`, one schema per way the contract accepts it (find needs anchors,
 * expand anchors or nodes, read nodes and no anchors): a grammar built from them cannot produce an explore the
 * environment refuses for a missing list.
 */
function exploreArguments(): Record<string, unknown>[] {
  const base = actionParametersSchema('explore');
  const properties = isRecord(base['properties']) ? base['properties'] : {};
  const nonEmpty = (name: string): Record<string, unknown> => ({ ...(isRecord(properties[name]) ? properties[name] : { type: 'array' }), minItems: 1 });
  const variant = (op: string, needs: string): Record<string, unknown> => {
    const own: Record<string, unknown> = { ...properties, op: { const: op }, [needs]: nonEmpty(needs) };
    // A read names nodes only; anchors beside them are refused.
    if (op === 'read') delete own['anchors'];
    return { ...base, properties: own, required: ['op', needs] };
  };
  return [variant('find', 'anchors'), variant('expand', 'anchors'), variant('expand', 'nodes'), variant('read', 'nodes')];
}

/** The JSON Schema of one reply: exactly one action and its arguments. */
export function jsonReplySchema(): Record<string, unknown> {
  const branch = (type: string, args: Record<string, unknown>): Record<string, unknown> => ({
    type: 'object',
    properties: { function: { const: type }, arguments: args },
    required: ['function', 'arguments'],
    additionalProperties: false,
  });
  return {
    oneOf: actionTypes.flatMap((type) =>
      type === 'explore' ? exploreArguments().map((args) => branch(type, args)) : [branch(type, actionParametersSchema(type))],
    ),
  };
}

/** The `response_format` of a request, in the dialect the server speaks. */
export function responseFormatFor(dialect: StructuredOutput): ResponseFormat {
  const schema = jsonReplySchema();
  return dialect === 'json_schema' ? { type: 'json_schema', json_schema: { name: 'planner_action', schema, strict: true } } : { type: 'json_object', schema };
}

const hint = 'Reply with one JSON object {"function": ACTION, "arguments": {…}} and nothing else.';

/** Parses a structured reply; the arguments are checked as a tool call's are. */
export function parseJsonReply(reply: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(reply) as unknown;
  } catch {
    const cut = reply.trim() === '' ? 'the reply is empty' : 'the reply is not one complete JSON object (was it cut off at the token limit?)';
    return { ok: false, error: protocolError('invalid-json-param', cut, hint) };
  }
  if (!isRecord(value) || typeof value['function'] !== 'string') {
    return {
      ok: false,
      error: protocolError('missing-function-tag', 'the JSON reply has no "function" naming an action', `${hint} ACTION is one of ${actionTypes.join(', ')}.`),
    };
  }
  const args = value['arguments'];
  if (args !== undefined && !isRecord(args)) return { ok: false, error: protocolError('invalid-json-param', '"arguments" is not a JSON object', hint) };
  return parseToolCall({ name: value['function'], arguments: args ?? {} });
}

/** Writes an action as a structured reply; `parseJsonReply(renderJsonReply(a))` gives `a` back. */
export function renderJsonReply(action: Action): string {
  const call = renderToolCall(action);
  return JSON.stringify({ function: call.name, arguments: JSON.parse(call.arguments) as unknown });
}
