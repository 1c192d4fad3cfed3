/**
 * Group page → extension. The extension validates every message against this schema and drops
 * anything else (`zod/mini`, so the extension's bundle stays small, as in `episodeWebview.ts`).
 */
import { discriminatedUnion, int, literal, maxLength, minimum, nullable, object, string, type output } from 'zod/mini';

export const groupWebviewMessageSchema = discriminatedUnion('type', [
  object({ type: literal('ready') }),
  /** Show another step's group, or another group of the step (`step: null` is the latest). */
  object({
    type: literal('selectStep'),
    step: nullable(int().check(minimum(0))),
    taskId: nullable(string().check(maxLength(1000))),
    groupId: nullable(string().check(maxLength(1000))),
  }),
  /** Show every episode of a task in the run. */
  object({ type: literal('selectTask'), taskId: string().check(maxLength(1000)) }),
  /** Open a column's episode in the trajectory viewer at one of its steps (`step: null` at its start). */
  object({ type: literal('openStep'), column: int().check(minimum(0)), step: nullable(int().check(minimum(1))) }),
]);
export type GroupWebviewMessage = output<typeof groupWebviewMessageSchema>;
