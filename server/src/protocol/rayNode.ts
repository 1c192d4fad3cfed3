/**
 * How a Ray node is named where space is narrow (issue 22): the Containers and Runs views'
 * descriptions (extension) and the trajectory viewer's header (webview) show the node of a sandbox
 * host the same way. Plain functions with no imports, so neither side bundles a schema for it.
 */

/**
 * A Ray node id is 56 hex digits, so it shows as its first 8 and an ellipsis, as Ray's dashboard
 * does; any other name (an address, a host name) shows whole. Tooltips show the whole id.
 */
export function shortNodeName(node: string): string {
  return /^[0-9a-f]{20,}$/i.test(node) ? `${node.slice(0, 8)}…` : node;
}
