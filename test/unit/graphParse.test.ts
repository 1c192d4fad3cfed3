/**
 * The code graph's nodes and import edges against CPython's own `ast` module, on real packages of
 * the Python that runs here (`json` and `email`): every class, function and method with its kind,
 * qualified name and span (decorators included), and every intra-package import. Also the
 * stability of ids across builds and across an edit above the definitions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { buildCodeGraphFromFiles, type SourceFile } from '../../server/src/graph/index.js';

/** The folder that holds the standard library of the `python3` on this machine. */
function stdlibDir(): string {
  return execFileSync('python3', ['-c', 'import json, os; print(os.path.dirname(os.path.dirname(json.__file__)))'], { encoding: 'utf8' }).trim();
}

function readPackage(root: string, pkg: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const info = lstatSync(full);
      if (info.isDirectory()) walk(full);
      else if (info.isFile() && name.endsWith('.py')) out.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
    }
  };
  walk(join(root, pkg));
  return out;
}

/**
 * Asks `ast` for each file's definitions (kind, qualified name, first line including decorators,
 * last line) and for the repository files its imports name, following the graph's documented
 * rules: `import a.b` is the longest prefix that is a module; `from m import x` is `m`, plus `m.x`
 * when that is a module; relative imports count up from the file's folder, `from . import x`
 * naming the package's `__init__.py`.
 */
const oracle = String.raw`
import ast, json, os, sys
root = sys.argv[1]
paths = set(sys.argv[2:])
def module_file(dotted):
    stem = dotted.replace('.', '/')
    for cand in (stem + '.py', stem + '/__init__.py'):
        if cand in paths:
            return cand
    return None
def longest(dotted):
    parts = dotted.split('.')
    for n in range(len(parts), 0, -1):
        f = module_file('.'.join(parts[:n]))
        if f:
            return f
    return None
out = {}
for rel in sorted(paths):
    tree = ast.parse(open(os.path.join(root, rel), encoding='utf-8').read())
    defs = []
    def visit(node, scope, qual):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = 'class' if isinstance(child, ast.ClassDef) else ('method' if scope == 'class' else 'function')
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                q = qual + [child.name]
                defs.append([kind, '.'.join(q), start, child.end_lineno])
                visit(child, 'class' if kind == 'class' else 'function', q)
            else:
                visit(child, scope, qual)
    visit(tree, 'module', [])
    imports = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imports.add(longest(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = os.path.dirname(rel)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
                prefix = base + '/' if base else ''
                stem = prefix + (node.module or '').replace('.', '/')
                mod = None
                if node.module:
                    for cand in (stem + '.py', stem + '/__init__.py'):
                        if cand in paths:
                            mod = cand
                            break
                elif prefix + '__init__.py' in paths:
                    mod = prefix + '__init__.py'
                imports.add(mod)
                for alias in node.names:
                    sub = (stem + '/' if node.module else prefix) + alias.name
                    for cand in (sub + '.py', sub + '/__init__.py'):
                        if cand in paths:
                            imports.add(cand)
                            break
            else:
                imports.add(longest(node.module or ''))
                for alias in node.names:
                    if alias.name != '*':
                        imports.add(module_file(node.module + '.' + alias.name))
    imports.discard(None)
    imports.discard(rel)
    out[rel] = {'defs': defs, 'imports': sorted(imports)}
print(json.dumps(out))
`;

interface OracleFile {
  defs: Array<[string, string, number, number]>;
  imports: string[];
}

function askAst(root: string, files: readonly SourceFile[]): Record<string, OracleFile> {
  const output = execFileSync('python3', ['-c', oracle, root, ...files.map((f) => f.path)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(output) as Record<string, OracleFile>;
}

const root = stdlibDir();
const packages = ['json', 'email'];

for (const pkg of packages) {
  test(`finds exactly the classes, functions and methods ast finds in ${pkg}, with the same spans`, async () => {
    const files = readPackage(root, pkg);
    assert.ok(files.length > 3, `${pkg} has ${files.length} files`);
    const expected = askAst(root, files);
    const graph = await buildCodeGraphFromFiles(files);
    let definitions = 0;
    for (const file of files) {
      const want = expected[file.path]?.defs.map(([kind, qual, start, end]) => `${kind} ${qual} ${start}-${end}`) ?? [];
      const got = graph
        .nodes()
        .filter((n) => n.path === file.path && n.kind !== 'file')
        .map((n) => `${n.kind} ${n.id.slice(n.id.indexOf('#') + 1).replace(/@\d+$/, '')} ${n.span.start}-${n.span.end}`);
      assert.deepEqual(got, want, `definitions of ${file.path}`);
      definitions += want.length;
      const counts = (kind: string) => [got.filter((g) => g.startsWith(`${kind} `)).length, want.filter((w) => w.startsWith(`${kind} `)).length];
      for (const kind of ['class', 'function', 'method']) assert.deepEqual(...(counts(kind) as [number, number]), `${kind} count of ${file.path}`);
    }
    assert.equal(graph.stats.files, files.length);
    assert.equal(graph.stats.classes + graph.stats.functions + graph.stats.methods, definitions);
  });

  test(`draws exactly the intra-package import edges ast's import list gives for ${pkg}`, async () => {
    const files = readPackage(root, pkg);
    const expected = askAst(root, files);
    const graph = await buildCodeGraphFromFiles(files);
    for (const file of files) {
      const got = graph
        .edgesOf(`file:${file.path}`)
        .filter((e) => e.kind === 'imports' && e.src === `file:${file.path}`)
        .map((e) => e.dst.slice('file:'.length))
        .sort();
      assert.deepEqual(got, expected[file.path]?.imports ?? [], `imports of ${file.path}`);
    }
    assert.ok(graph.stats.edges.imports > 0, `${pkg} has intra-package imports`);
  });
}

test('gives every node the same id in two builds, and contains edges a tree', async () => {
  const files = readPackage(root, 'email');
  const first = await buildCodeGraphFromFiles(files);
  const second = await buildCodeGraphFromFiles([...files].reverse());
  assert.deepEqual(
    second.nodes().map((n) => n.id),
    first.nodes().map((n) => n.id),
  );
  assert.deepEqual(second.edges(), first.edges());
  const ids = first.nodes().map((n) => n.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  // Every definition has exactly one container, and it is in the same file.
  for (const node of first.nodes()) {
    if (node.kind === 'file') continue;
    const parents = first.edgesOf(node.id).filter((e) => e.kind === 'contains' && e.dst === node.id);
    assert.equal(parents.length, 1, `${node.id} has ${parents.length} containers`);
    assert.equal(first.node(parents[0]?.src ?? '')?.path, node.path);
  }
});

test('keeps the ids of untouched definitions when lines are inserted at the top of a file', async () => {
  const files = readPackage(root, 'json');
  const target = files.find((f) => f.path === 'json/decoder.py');
  assert.ok(target !== undefined);
  const before = await buildCodeGraphFromFiles(files);
  const inserted = '# A comment added above everything.\nimport os\n\n\ndef added_helper():\n    return os.sep\n\n\n';
  const edited = files.map((f) => (f === target ? { path: f.path, text: inserted + f.text } : f));
  const after = await buildCodeGraphFromFiles(edited);
  const defsOf = (g: typeof before) => g.nodes().filter((n) => n.path === target.path && n.kind !== 'file');
  const old = defsOf(before);
  const now = defsOf(after);
  assert.deepEqual(
    now.map((n) => n.id).filter((id) => !id.endsWith('#added_helper')),
    old.map((n) => n.id),
  );
  assert.ok(now.some((n) => n.id === 'func:json/decoder.py#added_helper'));
  const shift = inserted.split('\n').length - 1;
  for (const node of old) assert.deepEqual(after.node(node.id)?.span, { start: node.span.start + shift, end: node.span.end + shift }, node.id);
});

test('numbers repeated definitions in source order and keeps async and decorated ones', async () => {
  const text = [
    'import functools',
    '',
    'class Box:',
    '    @property',
    '    def size(self):',
    '        """The size."""',
    '        return self._size',
    '',
    '    @size.setter',
    '    def size(self, value):',
    '        self._size = value',
    '',
    '    class Lid:',
    '        def open(self): pass',
    '',
    '@functools.lru_cache(maxsize=None)',
    'async def fetch(url: str, *, timeout: float = 1.0) -> bytes:',
    '    async def retry(n):',
    '        return n',
    '    return b""',
    '',
    'def fetch(): pass',
    '',
  ].join('\n');
  const graph = await buildCodeGraphFromFiles([{ path: 'pkg/box.py', text }]);
  const summary = graph.nodes().map((n) => [n.id, n.kind, n.span.start, n.span.end]);
  assert.deepEqual(summary, [
    ['file:pkg/box.py', 'file', 1, 22],
    ['class:pkg/box.py#Box', 'class', 3, 14],
    ['method:pkg/box.py#Box.size', 'method', 4, 7],
    ['method:pkg/box.py#Box.size@2', 'method', 9, 11],
    ['class:pkg/box.py#Box.Lid', 'class', 13, 14],
    ['method:pkg/box.py#Box.Lid.open', 'method', 14, 14],
    ['func:pkg/box.py#fetch', 'function', 16, 20],
    ['func:pkg/box.py#fetch.retry', 'function', 18, 19],
    ['func:pkg/box.py#fetch@2', 'function', 22, 22],
  ]);
  assert.equal(graph.node('func:pkg/box.py#fetch')?.signature, 'async def fetch(url: str, *, timeout: float = 1.0) -> bytes');
  assert.equal(graph.node('method:pkg/box.py#Box.size')?.docstring, 'The size.');
  assert.equal(graph.node('class:pkg/box.py#Box.Lid')?.signature, 'class Lid');
  const contains = graph
    .edges()
    .filter((e) => e.kind === 'contains')
    .map((e) => `${e.src} > ${e.dst}`);
  assert.ok(contains.includes('class:pkg/box.py#Box > class:pkg/box.py#Box.Lid'));
  assert.ok(contains.includes('func:pkg/box.py#fetch > func:pkg/box.py#fetch.retry'));
  assert.equal(graph.nodeAt('pkg/box.py', 19)?.id, 'func:pkg/box.py#fetch.retry');
  assert.equal(graph.nodeAt('pkg/box.py', 2)?.id, 'file:pkg/box.py');
});
