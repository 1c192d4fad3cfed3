/**
 * Messages between the experiment overview webview and the extension that hosts it. Each side
 * validates every message it receives against these schemas and ignores (and logs) anything else:
 * a webview is a web page, and the extension treats what it posts as untrusted input.
 *
 * `zod/mini` with named imports keeps these schemas small in the extension's bundle (see
 * `overview.ts`).
 */
import { discriminatedUnion, literal, object, string, type output } from 'zod/mini';
import { experimentOverviewSchema, overviewRangeSchema } from './overview.js';

/** Extension → webview. */
export const hostMessageSchema = discriminatedUnion('type', [
  /** The overview of the document the panel belongs to; `file` is its workspace-relative path. */
  object({ type: literal('overview'), file: string(), overview: experimentOverviewSchema }),
  /** No overview can be had now (the server is not running, or the request failed), and why. */
  object({ type: literal('unavailable'), file: string(), reason: string() }),
]);
export type HostMessage = output<typeof hostMessageSchema>;

/** Webview → extension. */
export const webviewMessageSchema = discriminatedUnion('type', [
  /** The page has loaded and listens; the extension answers with the latest overview. */
  object({ type: literal('ready') }),
  /** The person clicked a finding or a key: show this range of the YAML in its editor. */
  object({ type: literal('reveal'), range: overviewRangeSchema }),
  /**
   * The person clicked a finding's quick-fix button: apply the editor's code action titled `title`
   * for the finding `code` at `range`, as choosing it from the light bulb would.
   */
  object({ type: literal('applyFix'), code: string(), range: overviewRangeSchema, title: string() }),
]);
export type WebviewMessage = output<typeof webviewMessageSchema>;
