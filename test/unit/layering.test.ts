/**
 * The folders of `server/src/` import one another only as ARCHITECTURE.md's folder table allows,
 * and only through a folder's `index.ts` unless the table says any file will do. The table is
 * parsed from ARCHITECTURE.md itself, so the map and the check cannot drift apart.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { checkLayering, formatViolation, importSites, parseLayerTable } from '../support/layering.js';

const fixture = join('test', 'fixtures', 'layering');

test('reads the allowed imports and the entry of each folder from the table', () => {
  const table = parseLayerTable(readFileSync(join(fixture, 'ARCHITECTURE.md'), 'utf8'));
  assert.deepEqual([...table.keys()], ['open/', 'base/', 'top/', 'cli/', 'main.ts']);
  const top = table.get('top/');
  assert.deepEqual(top?.mayImport === 'any' ? 'any' : [...(top?.mayImport ?? [])], ['base/', 'open/']);
  assert.equal(top?.entry, 'index');
  assert.equal(table.get('open/')?.entry, 'any-file');
  assert.equal(table.get('main.ts')?.mayImport, 'any');
  assert.equal(table.get('cli/')?.entry, 'not-imported');
});

test('finds import, import type, export from, multi-line and dynamic imports with their lines', () => {
  const text = [
    "import { a } from './a.js';",
    'import type {',
    '  B,',
    "} from '../b/index.js';",
    "export { c } from './c.js';",
    "import './side.js';",
    "const d = await import('./d.js');",
    "export const e = 'from here';",
  ].join('\n');
  assert.deepEqual(importSites(text), [
    { line: 1, specifier: './a.js' },
    { line: 4, specifier: '../b/index.js' },
    { line: 5, specifier: './c.js' },
    { line: 6, specifier: './side.js' },
    { line: 7, specifier: './d.js' },
  ]);
});

test('reports exactly the crossing, index-skipping, entry-point and unmapped imports of the fixture', () => {
  const table = parseLayerTable(readFileSync(join(fixture, 'ARCHITECTURE.md'), 'utf8'));
  const found = checkLayering(join(fixture, 'src'), table).map((v) => `${v.file}:${v.line} ${v.from}->${v.to} ${v.rule}`);
  assert.deepEqual(found.sort(), [
    'base/crossing.ts:2 base/->top/ not-allowed',
    'main.ts:3 main.ts->cli/ not-importable',
    'top/deep.ts:4 top/->base/ skips-index',
    'top/stray.ts:2 top/->stray/ unknown-folder',
  ]);
});

test('says where, which folders and which rule in one line', () => {
  const table = parseLayerTable(readFileSync(join(fixture, 'ARCHITECTURE.md'), 'utf8'));
  const crossing = checkLayering(join(fixture, 'src'), table).find((v) => v.rule === 'not-allowed');
  assert.ok(crossing, 'the fixture has a crossing import');
  assert.equal(
    formatViolation(crossing),
    "base/crossing.ts:2  base/ → top/  not-allowed: base/ may not import top/ (ARCHITECTURE.md's table does not allow it) ('../top/index.js')",
  );
});

test('server/src follows the folder table of ARCHITECTURE.md', () => {
  const table = parseLayerTable(readFileSync('ARCHITECTURE.md', 'utf8'));
  const violations = checkLayering(join('server', 'src'), table);
  assert.deepEqual(violations.map(formatViolation), [], `${violations.length} imports break the layering:\n${violations.map(formatViolation).join('\n')}`);
});

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

test('the extension and the webview import nothing from the server but protocol/', () => {
  const protocol = resolve('server', 'src', 'protocol');
  const server = resolve('server');
  const outside: string[] = [];
  for (const file of [...tsFiles(join('extension', 'src')), ...tsFiles(join('webview', 'src'))]) {
    for (const site of importSites(readFileSync(file, 'utf8'))) {
      if (!site.specifier.startsWith('.')) continue;
      const target = resolve(file, '..', site.specifier);
      const intoServer = !relative(server, target).startsWith('..');
      const intoProtocol = !relative(protocol, target).startsWith('..');
      if (intoServer && !intoProtocol) outside.push(`${file}:${site.line} imports '${site.specifier}'`);
    }
  }
  assert.deepEqual(outside, []);
});
