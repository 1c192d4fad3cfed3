/**
 * The compiled validator of one task entry. It is compiled once, when first used, from the
 * same JSON Schema that `schemas/task.schema.json` holds, so the editor, the CLI and other tools
 * that use the emitted file agree on what a valid task is. zod emits JSON Schema draft 2020-12,
 * hence ajv's 2020 build.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { taskEntryJsonSchema } from './schema.js';

export const taskJsonSchema: Record<string, unknown> = taskEntryJsonSchema();

let validator: ValidateFunction | undefined;

/**
 * Compiled on first use, not at load: the language server loads this module at start but may never
 * see a dataset, and compiling took a tenth of its start before the first diagnostics (docs/benchmarks.md).
 */
function compiled(value: unknown): boolean {
  validator ??= new Ajv2020({ allErrors: true, strict: false }).compile(taskJsonSchema);
  return validator(value);
}

/** Validates one parsed line; returns the schema errors, or undefined when there are none. */
export function schemaErrors(value: unknown): readonly ErrorObject[] | undefined {
  return compiled(value) ? undefined : (validator?.errors ?? []);
}

/** True when the value is a valid task entry (the fast path: no error objects are kept). */
export function isValidTask(value: unknown): boolean {
  return compiled(value);
}
