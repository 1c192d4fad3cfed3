/**
 * How the views name the Ray node a sandbox host ran on (issue 22). A Ray node id is 56 hex
 * digits, too long for a tree item's description, so descriptions show its first 8 as Ray's
 * dashboard does; tooltips show the whole name. No `vscode` import, for the unit tests.
 */

/** `node 3f9a1c02…` for a Ray node id, `node worker-2` for any other name. */
export function nodeText(node: string): string {
  return `node ${/^[0-9a-f]{20,}$/i.test(node) ? `${node.slice(0, 8)}…` : node}`;
}
