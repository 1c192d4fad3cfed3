/**
 * The channel to the extension. `acquireVsCodeApi` is what VS Code gives a webview; it may be
 * called once per page load, so every page module goes through `vscodeApi`. Outgoing messages are
 * typed by the shared protocol; incoming ones are validated by the caller.
 */
import type { WebviewMessage } from '../../server/src/protocol/webview.js';

export interface VsCodeApi {
  postMessage(message: unknown): void;
  /** What `setState` stored, kept by VS Code while the panel is hidden or reloaded. */
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export const vscodeApi = acquireVsCodeApi();

/** The experiment overview's messages. */
export function send(message: WebviewMessage): void {
  vscodeApi.postMessage(message);
}
