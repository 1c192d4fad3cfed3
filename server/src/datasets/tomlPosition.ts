/**
 * Where a key of a TOML document is written, so a wrong value is reported at its line and column
 * (smol-toml parses values without positions). It follows table headers (`[verifier]`,
 * `[[steps]]` as their name) and `key = value` lines, bare or quoted, which is how task.toml files
 * are written; a key it cannot place gives undefined, and the caller names the key alone.
 */

/** The 1-based line and column of `path` (`['verifier', 'timeout_sec']`) in `text`. */
export function tomlKeyPosition(text: string, path: readonly (string | number)[]): { line: number; column: number } | undefined {
  const wanted = path.filter((p): p is string => typeof p === 'string');
  let table: string[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(raw);
    if (header !== null) {
      table = (header[1] ?? '').split('.').map((part) => part.trim().replace(/^["']|["']$/g, ''));
      continue;
    }
    const assignment = /^(\s*)((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/.exec(raw);
    if (assignment === null) continue;
    const keys = (assignment[2] ?? '').split('.').map((part) => part.trim().replace(/^["']|["']$/g, ''));
    const full = [...table, ...keys];
    if (full.length === wanted.length && full.every((part, j) => part === wanted[j])) return { line: i + 1, column: (assignment[1] ?? '').length + 1 };
  }
  return undefined;
}
