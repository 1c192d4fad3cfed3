/**
 * FAIL_TO_PASS and PASS_TO_PASS arrive either as arrays or, as SWE-bench ships them, as strings
 * holding a JSON array. The task schema (`server/src/tasks/schema.ts`) accepts both forms and
 * leaves them as written, so grading and the dataset converters decode them here, once, at the edge.
 */
import { errorMessage } from '../util/errors.js';

export type TestListResult =
  { readonly ok: true; readonly tests: readonly string[] } | { readonly ok: false; readonly code: 'testing/test-list'; readonly message: string };

function failure(message: string): TestListResult {
  return { ok: false, code: 'testing/test-list', message };
}

function stringArray(value: unknown, what: string): TestListResult {
  if (!Array.isArray(value)) return failure(`${what} must be a list of test ids or a JSON-encoded list of them.`);
  const items: unknown[] = value;
  const index = items.findIndex((item) => typeof item !== 'string');
  if (index !== -1) return failure(`${what}[${index}] is not a string; every test id must be a string.`);
  return { ok: true, tests: items.filter((item): item is string => typeof item === 'string') };
}

/**
 * Decodes one gold test list. A missing list (undefined or null) is an empty one, as SWE-bench
 * treats an empty list as fully passed; anything else that is not a list of strings is an error.
 */
export function decodeTestList(value: unknown, what = 'The test list'): TestListResult {
  if (value === undefined || value === null) return { ok: true, tests: [] };
  if (typeof value !== 'string') return stringArray(value, what);
  let decoded: unknown;
  try {
    decoded = JSON.parse(value);
  } catch (error) {
    const reason = errorMessage(error);
    return failure(`${what} is a string but not valid JSON (${reason}); SWE-bench writes it as a JSON list such as ["tests/test_x.py::test_a"].`);
  }
  return stringArray(decoded, what);
}
