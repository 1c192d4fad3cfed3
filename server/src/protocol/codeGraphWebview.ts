/**
 * Code-graph page → extension. The extension validates every message against this schema and drops
 * anything else (`zod/mini`, so the extension's bundle stays small, as in `episodeWebview.ts`).
 */
import { discriminatedUnion, enum as enumOf, int, literal, maxLength, minimum, number, object, string, type output } from 'zod/mini';

export const codeGraphWebviewMessageSchema = discriminatedUnion('type', [
  object({ type: literal('ready') }),
  /** A node was clicked: open its file at the line (or the lines the episode recorded of it). */
  object({ type: literal('openNode'), file: string().check(maxLength(4096)), line: int().check(minimum(1)) }),
  /** Draw every node the episode met (up to the server's most), not only the default's. */
  object({ type: literal('showAll') }),
  /** How long the page took to draw the graph first, for the benchmark and the log. */
  object({ type: literal('timing'), what: enumOf(['firstPaint']), ms: number() }),
]);
export type CodeGraphWebviewMessage = output<typeof codeGraphWebviewMessageSchema>;
