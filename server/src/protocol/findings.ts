/**
 * A finding is what every check in the product returns (schema validation, preflight, dataset
 * validation): an error as a value, with a stable code, a message a person can act on, the key path
 * it is about, related key paths, and fixes that a code action or `gp config check --fix` applies.
 */
import { z } from 'zod';

export const severitySchema = z.enum(['error', 'warning', 'info', 'hint']);
export type Severity = z.infer<typeof severitySchema>;

/** A key path into a YAML or JSON document: object keys and array indices. */
export const keyPathSchema = z.array(z.union([z.string(), z.number().int().min(0)]));
export type KeyPath = z.infer<typeof keyPathSchema>;

/**
 * One change to a document, expressed on values rather than text so that the same fix works in the
 * editor (turned into a TextEdit through the YAML CST) and on the command line.
 */
export const configEditSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('set'), path: keyPathSchema, value: z.unknown() }),
  z.object({ op: z.literal('remove'), path: keyPathSchema }),
  z.object({ op: z.literal('rename'), path: keyPathSchema, newKey: z.string() }),
  /** Replaces the whole document (or, for JSONL, the whole line) with this value. */
  z.object({ op: z.literal('replaceRoot'), value: z.unknown() }),
]);
export type ConfigEdit = z.infer<typeof configEditSchema>;

export const fixSchema = z.object({
  title: z.string(),
  /** The fix a person most likely wants; VS Code marks it preferred. */
  preferred: z.boolean().optional(),
  edits: z.array(configEditSchema),
});
export type Fix = z.infer<typeof fixSchema>;

export const relatedSchema = z.object({ path: keyPathSchema, message: z.string() });
export type Related = z.infer<typeof relatedSchema>;

export const findingSchema = z.object({
  /** Stable identifier such as `schema/type` or `preflight/negative-penalty`. */
  code: z.string(),
  severity: severitySchema,
  message: z.string(),
  path: keyPathSchema,
  /** Where the finding sits on `path`: the value (default) or the key itself. */
  target: z.enum(['value', 'key']).optional(),
  /**
   * The finding's cause in words that hold for every place it is found, without what only this
   * place has (a row's image, its id). Findings of one code with one cause are said once for a
   * dataset's many rows (`lsp/jsonlSummaries.ts`); without it, the message is the cause.
   */
  cause: z.string().optional(),
  related: z.array(relatedSchema).default([]),
  fixes: z.array(fixSchema).default([]),
});
export type Finding = z.infer<typeof findingSchema>;

export function finding(f: Omit<Finding, 'related' | 'fixes'> & Partial<Pick<Finding, 'related' | 'fixes'>>): Finding {
  return { related: [], fixes: [], ...f };
}
