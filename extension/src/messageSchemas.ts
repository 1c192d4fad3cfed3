/**
 * The message schemas, loaded on first use. Building zod's schemas is a third of what loading
 * the extension would otherwise cost (docs/benchmarks.md, "Activation"), and no message arrives
 * before a view is open. The bundle evaluates `messageSchemaSet.ts` and zod when this is first
 * called; messages that arrive meanwhile wait for the same load, in the order they came.
 */
export type MessageSchemas = typeof import('./messageSchemaSet.js');

let loading: Promise<MessageSchemas> | undefined;

export function messageSchemas(): Promise<MessageSchemas> {
  loading ??= import('./messageSchemaSet.js');
  return loading;
}
