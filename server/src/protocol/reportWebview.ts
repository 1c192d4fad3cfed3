/**
 * Report page → extension. The extension validates every message against this schema and drops
 * anything else (`zod/mini`, so the extension's bundle stays small, as in `episodeWebview.ts`).
 * The page names an episode by its index in the report it was given, never by a path, so it cannot
 * make the extension open a file the report does not list.
 */
import { discriminatedUnion, int, literal, maxLength, minimum, object, string, type output } from 'zod/mini';

export const reportWebviewMessageSchema = discriminatedUnion('type', [
  object({ type: literal('ready') }),
  /** Open an episode of the report in the trajectory viewer: the task's row and the episode's place in it. */
  object({ type: literal('openEpisode'), taskId: string().check(maxLength(4096)), index: int().check(minimum(0)) }),
  /** Open an infrastructure failure's trajectory, by its place in the report's list. */
  object({ type: literal('openFailed'), index: int().check(minimum(0)) }),
  /** The raw `report.json`, as a secondary action. */
  object({ type: literal('openJson') }),
  object({ type: literal('refresh') }),
]);
export type ReportWebviewMessage = output<typeof reportWebviewMessageSchema>;
