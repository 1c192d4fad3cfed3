/**
 * Graph nodes of one parsed file, with their ids. Ids carry no line numbers so that they survive
 * edits above a definition: `file:<path>`, `class:<path>#<Qual.Name>`, `func:<path>#<name>`,
 * `method:<path>#<Class.name>`; the second definition of the same qualified name in a file gets
 * `@2`, the third `@3`, in source order.
 */
import { posix } from 'node:path';
import type { GraphNode } from '../protocol/graph.js';
import type { DefinitionKind, FileParse } from './extract.js';

const idPrefix: Record<DefinitionKind, string> = { class: 'class:', function: 'func:', method: 'method:' };

export function fileId(path: string): string {
  return `file:${path}`;
}

/** The file's node followed by one node per definition, in the order of `parse.definitions`. */
export function nodesOf(parse: FileParse): { file: GraphNode; definitions: GraphNode[] } {
  const file: GraphNode = {
    id: fileId(parse.path),
    kind: 'file',
    name: posix.basename(parse.path),
    path: parse.path,
    span: { start: 1, end: Math.max(1, parse.lineCount) },
  };
  if (parse.docstring !== undefined) file.docstring = parse.docstring;
  const test = isTestPath(parse.path);
  if (test) file.test = true;
  const seen = new Map<string, number>();
  const definitions = parse.definitions.map((d) => {
    const base = `${idPrefix[d.kind]}${parse.path}#${d.qualName}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const node: GraphNode = {
      id: count === 1 ? base : `${base}@${count}`,
      kind: d.kind,
      name: d.name,
      path: parse.path,
      span: d.span,
      signature: d.signature,
    };
    if (d.docstring !== undefined) node.docstring = d.docstring;
    if (test) node.test = true;
    return node;
  });
  return { file, definitions };
}

/** Whether a path is a test file: `test_*.py`, `*_test.py`, or anywhere under a `tests`/`test` folder. */
export function isTestPath(path: string): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1] ?? '';
  if (base.startsWith('test_') || base.endsWith('_test.py') || base === 'conftest.py') return true;
  return parts.slice(0, -1).some((p) => p === 'tests' || p === 'test');
}

/** Whether a node is a test: a function or method named `test*` in a test file. */
export function isTestDefinition(node: GraphNode): boolean {
  return (node.kind === 'function' || node.kind === 'method') && node.name.startsWith('test') && isTestPath(node.path);
}
