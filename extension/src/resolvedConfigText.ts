/**
 * The text of a resolved config view: the server's merged YAML under a comment header that says
 * what the view is and how many problems the source has. Pure, so the wording is unit-tested.
 */
import type { ResolvedConfigResult } from '../../server/src/protocol/lsp.js';
import { count } from './countText.js';

/** `file` is the workspace-relative path of the experiment YAML the view resolves. */
export function resolvedConfigText(result: ResolvedConfigResult, file: string): string {
  const counts = `${count(result.errors, 'error')}, ${count(result.warnings, 'warning')}`;
  if (result.yaml === null) {
    const reason = result.reason?.trim() || 'the document could not be parsed';
    return `# Graph Planner could not resolve ${file}: ${reason}.\n# ${counts}; see the Problems panel.\n`;
  }
  const header = [
    `# Resolved config of ${file}: defaults merged with the file (${counts}).`,
    '# Read-only; it refreshes when the file changes. Edit the file itself to change it.',
  ].join('\n');
  const body = result.yaml.endsWith('\n') ? result.yaml : `${result.yaml}\n`;
  return `${header}\n${body}`;
}

/** What the view shows while no server can answer. */
export function serverNotRunningText(file: string): string {
  return `# The Graph Planner server is not running, so ${file} cannot be resolved.\n# Run "Graph Planner: Restart Server"; this view refreshes when the server is ready.\n`;
}
