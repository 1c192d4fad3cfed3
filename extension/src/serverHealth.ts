/**
 * The server's health as the status bar shows it. It combines what the server reports through
 * `graphPlanner/serverStatus` with what only the client knows (the process stopped or crashed).
 * This module does not import `vscode`, so every state's text is unit-tested.
 */
import type { ServerStatus } from '../../server/src/protocol/lsp.js';

export type ServerHealth =
  | { readonly kind: 'starting'; readonly message: string }
  | { readonly kind: 'ready'; readonly message: string; readonly version: string }
  | { readonly kind: 'busy'; readonly message: string; readonly version: string }
  | { readonly kind: 'error'; readonly message: string; readonly version: string }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'crashed'; readonly message: string };

/** What the status bar item shows; `background` names a `statusBarItem.*Background` colour. */
export interface StatusView {
  readonly text: string;
  readonly tooltip: string;
  readonly background: 'error' | 'warning' | undefined;
}

export function healthFromStatus(status: ServerStatus): ServerHealth {
  switch (status.state) {
    case 'starting':
      return { kind: 'starting', message: status.message };
    case 'ready':
    case 'busy':
    case 'error':
      return { kind: status.state, message: status.message, version: status.version };
  }
}

const clickHint = 'Click to show the Graph Planner output.';

function tooltip(...lines: string[]): string {
  return [...lines.filter((line) => line.trim() !== ''), clickHint].join('\n');
}

function versioned(version: string): string {
  return version === '' ? 'Graph Planner server' : `Graph Planner server ${version}`;
}

export function statusView(health: ServerHealth): StatusView {
  switch (health.kind) {
    case 'starting':
      return { text: '$(loading~spin) Graph Planner', tooltip: tooltip('Graph Planner server is starting.', health.message), background: undefined };
    case 'ready':
      return { text: '$(check) Graph Planner', tooltip: tooltip(`${versioned(health.version)} is ready.`, health.message), background: undefined };
    case 'busy':
      return { text: '$(sync~spin) Graph Planner', tooltip: tooltip(`${versioned(health.version)} is busy.`, health.message), background: undefined };
    case 'error':
      return { text: '$(error) Graph Planner', tooltip: tooltip(`${versioned(health.version)} reported an error.`, health.message), background: 'error' };
    case 'stopped':
      return {
        text: '$(circle-slash) Graph Planner',
        tooltip: tooltip('Graph Planner server is stopped. Run "Graph Planner: Restart Server" to start it.'),
        background: 'warning',
      };
    case 'crashed':
      return { text: '$(error) Graph Planner', tooltip: tooltip('Graph Planner server is not running.', health.message), background: 'error' };
  }
}
