/**
 * Messages between the trajectory viewer's webview and the extension that hosts it. Each side
 * validates every message it receives against these schemas and drops (and logs) anything else:
 * the page shows model output, which is untrusted text, and the extension treats what the page
 * posts as untrusted input. The page's own messages are declared with `zod/mini` so the extension's
 * bundle stays small (as in `webview.ts`); what the extension sends is in `episodeView.ts`.
 */
import { array, boolean, discriminatedUnion, enum as enumOf, int, literal, maxLength, minimum, nullable, number, object, string, type output } from 'zod/mini';

/** Which patch: a repair step's candidate, or (`step: null`) the episode's final patch. */
export const patchRefSchema = object({ step: nullable(int()), candidate: nullable(int().check(minimum(0))) });
export type PatchRef = output<typeof patchRefSchema>;

/** Webview → extension. */
export const episodeWebviewMessageSchema = discriminatedUnion('type', [
  object({ type: literal('ready') }),
  object({ type: literal('needSteps'), steps: array(int()).check(maxLength(200)) }),
  object({ type: literal('search'), query: string().check(maxLength(1000)), caseSensitive: boolean() }),
  /** A node id or `file:line` link in an observation. */
  object({ type: literal('openLocation'), file: string().check(maxLength(4096)), line: int().check(minimum(1)) }),
  object({ type: literal('openPatch'), patch: patchRefSchema }),
  object({ type: literal('applyPatch'), patch: patchRefSchema }),
  object({ type: literal('compare') }),
  /** Re-execute the episode in a fresh sandbox (`gp trajectory replay` in a terminal). */
  object({ type: literal('replay') }),
  /** Open the episode on the code graph in a panel beside the viewer (protocol/codeGraphView.ts), at the selected step. */
  object({ type: literal('codeGraph'), step: int().check(minimum(0)) }),
  /** The episode's code graph for the viewer's own code-graph pane (`all`: every node, not the default's). */
  object({ type: literal('needCodeGraph'), all: boolean() }),
  /** The selected step changed; an open code-graph view of the episode follows it. */
  object({ type: literal('selected'), step: int().check(minimum(0)) }),
  /**
   * *Continue from Here…* on a step of one of our own episodes (docs/trajectory-viewer.md#continue-from-here):
   * the extension asks for the agent, model and count, and launches the fork.
   */
  object({ type: literal('continueFrom'), step: int().check(minimum(1)) }),
  /** Show another episode of a file of many (an Inspect log's sample, by the key the header listed). */
  object({ type: literal('chooseSample'), key: string().check(maxLength(1000)) }),
  /** How long the page took to show something, for the benchmark and the log. */
  object({ type: literal('timing'), what: enumOf(['firstRender', 'stepSwitch']), ms: number() }),
]);
export type EpisodeWebviewMessage = output<typeof episodeWebviewMessageSchema>;

/** Compare webview → extension. */
export const compareWebviewMessageSchema = discriminatedUnion('type', [
  object({ type: literal('ready') }),
  /** Open one of the two episodes in the trajectory viewer. */
  object({ type: literal('openEpisode'), side: enumOf(['left', 'right']) }),
  /** The two final patches in the diff editor. */
  object({ type: literal('diffPatches') }),
]);
export type CompareWebviewMessage = output<typeof compareWebviewMessageSchema>;
