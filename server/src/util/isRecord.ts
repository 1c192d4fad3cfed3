/**
 * The one test for "a JSON-like object with string keys" used wherever untrusted values (parsed
 * YAML, JSON Lines rows, tool-call arguments, model replies) are inspected before a schema types
 * them. Arrays and null are excluded, since `typeof` calls both of them objects.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
