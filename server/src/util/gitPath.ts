/**
 * Paths as git writes them in diffs: C-style quoting for unusual characters, and the path part of
 * a `---`/`+++` header line. The patch guard (sandbox/patchPaths.ts) and the diff applier
 * (util/unifiedDiff.ts) read headers the same way through these.
 */

/** Undoes git's C-style quoting of paths with unusual characters (`"a/sp\303\244ce.py"`). */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] ?? '';
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path part of a `---`/`+++` line, unquoted: up to a tab (timestamps follow one in GNU diff output). */
export function diffHeaderPath(rest: string): string {
  const raw = rest.startsWith('"') ? rest.slice(0, rest.indexOf('"', 1) + 1) || rest : (rest.split('\t')[0] ?? rest);
  return unquoteGitPath(raw.trimEnd());
}
