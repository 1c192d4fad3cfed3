/**
 * The layering check behind `test/unit/layering.test.ts`. The allowed imports between the folders of
 * `server/src/` are read from the folder table of ARCHITECTURE.md, so the map a person reads and
 * the rule the test enforces are one text and cannot drift apart.
 *
 * A table row looks like
 * `` | `env/` | what it owns | `graph/`, `sandbox/`, `protocol/`, `util/` | `index.ts` | ``:
 * the third cell names the folders it may import (or says "nothing", or "any folder"), and the
 * fourth says how other folders reach it: through `index.ts`, through "any file" (a folder of
 * independent modules), or "not imported" (an entry point).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export type Entry = 'index' | 'any-file' | 'not-imported';

export interface LayerRule {
  /** A folder name with its slash (`env/`), or a file at the root (`main.ts`). */
  readonly unit: string;
  /** The units it may import besides itself; `'any'` for entry points that wire everything. */
  readonly mayImport: ReadonlySet<string> | 'any';
  readonly entry: Entry;
}

export type LayerTable = ReadonlyMap<string, LayerRule>;

export type Rule = 'not-allowed' | 'skips-index' | 'not-importable' | 'unknown-folder';

export interface Violation {
  /** The importing file, relative to the source root, with forward slashes. */
  readonly file: string;
  readonly line: number;
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
  readonly rule: Rule;
}

export interface ImportSite {
  readonly line: number;
  readonly specifier: string;
}

const unitToken = /`([A-Za-z0-9_-]+\/|[A-Za-z0-9_-]+\.ts)`/g;

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

function parseEntry(cell: string, unit: string): Entry {
  if (cell.includes('`index.ts`')) return 'index';
  if (/any file/i.test(cell)) return 'any-file';
  if (/not imported/i.test(cell)) return 'not-imported';
  throw new Error(`ARCHITECTURE.md: the row of ${unit} says neither \`index.ts\`, "any file" nor "not imported" in its last cell: ${cell}`);
}

function parseMayImport(cell: string, unit: string): ReadonlySet<string> | 'any' {
  if (/any folder/i.test(cell)) return 'any';
  const units = new Set([...cell.matchAll(unitToken)].map((m) => m[1] ?? ''));
  if (units.size === 0 && !/nothing/i.test(cell)) {
    throw new Error(`ARCHITECTURE.md: the row of ${unit} names no folder it may import and does not say "nothing": ${cell}`);
  }
  return units;
}

/**
 * Reads the folder table: the first Markdown table whose header has a "may import" column. Rows
 * whose first cell is not a backticked folder (`x/`) or root file (`x.ts`) are skipped.
 */
export function parseLayerTable(markdown: string): LayerTable {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => line.trim().startsWith('|') && /may import/i.test(line));
  if (header === -1) throw new Error('ARCHITECTURE.md has no table with a "may import" column.');
  const table = new Map<string, LayerRule>();
  for (const line of lines.slice(header + 2)) {
    if (!line.trim().startsWith('|')) break;
    const [first = '', , mayImport = '', entry = ''] = cells(line);
    const unit = /^`([A-Za-z0-9_-]+\/|[A-Za-z0-9_-]+\.ts)`/.exec(first)?.[1];
    if (unit === undefined) continue;
    table.set(unit, { unit, mayImport: parseMayImport(mayImport, unit), entry: parseEntry(entry, unit) });
  }
  return table;
}

/**
 * Every module specifier a file names: static `import … from`, `export … from`, side-effect
 * imports, `import x = require(…)` and dynamic `import(…)`, with the line it starts on. A simple
 * scan, not a parser: the sources import with single-quoted literal specifiers.
 */
export function importSites(text: string): ImportSite[] {
  const patterns = [
    /^[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^[ \t]*import\s*['"]([^'"]+)['"]/gm,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const sites: ImportSite[] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1];
      if (specifier === undefined) continue;
      const offset = match.index + match[0].length;
      sites.push({ line: text.slice(0, offset).split('\n').length, specifier });
    }
  }
  return sites.sort((a, b) => a.line - b.line);
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The folder (`env/`) or root file (`main.ts`) a source-root-relative path belongs to. */
function unitOf(path: string): string {
  const parts = path.split('/');
  return parts.length === 1 ? (parts[0] ?? '') : `${parts[0] ?? ''}/`;
}

function isIndex(pathInUnit: string): boolean {
  return pathInUnit === 'index.js' || pathInUnit === 'index.ts';
}

function checkSite(table: LayerTable, file: string, site: ImportSite, root: string): Violation | undefined {
  if (!site.specifier.startsWith('.')) return undefined;
  const target = relative(root, resolve(root, dirname(file), site.specifier))
    .split(sep)
    .join('/');
  // Imports that leave the source root (package.json, generated files) are not part of the layering.
  if (target.startsWith('..')) return undefined;
  const from = unitOf(file);
  const to = unitOf(target);
  if (from === to) return undefined;
  const base = { file, line: site.line, from, to, specifier: site.specifier };
  const source = table.get(from);
  const dest = table.get(to);
  if (source === undefined) return { ...base, rule: 'unknown-folder' };
  if (dest === undefined) return { ...base, rule: 'unknown-folder' };
  if (source.mayImport !== 'any' && !source.mayImport.has(to)) return { ...base, rule: 'not-allowed' };
  if (dest.entry === 'not-imported') return { ...base, rule: 'not-importable' };
  if (dest.entry === 'index' && !isIndex(target.slice(to.length))) return { ...base, rule: 'skips-index' };
  return undefined;
}

/** Checks every `.ts` file under `root` against the table; a folder missing from the table is reported too. */
export function checkLayering(root: string, table: LayerTable): Violation[] {
  const violations: Violation[] = [];
  for (const path of sourceFiles(root)) {
    const file = relative(root, path).split(sep).join('/');
    for (const site of importSites(readFileSync(path, 'utf8'))) {
      const violation = checkSite(table, file, site, root);
      if (violation !== undefined) violations.push(violation);
    }
  }
  return violations;
}

const explanations: Record<Rule, (v: Violation) => string> = {
  'not-allowed': (v) => `${v.from} may not import ${v.to} (ARCHITECTURE.md's table does not allow it)`,
  'skips-index': (v) => `reaches into ${v.to}'s internals; import its index.ts instead`,
  'not-importable': (v) => `${v.to} is an entry point that nothing imports`,
  'unknown-folder': (v) => `${v.from} → ${v.to}: a folder missing from ARCHITECTURE.md's table; add its row`,
};

/** One line a person can act on: `env/options.ts:6  env/ → config/  not-allowed: … ('../config/index.js')`. */
export function formatViolation(v: Violation): string {
  return `${v.file}:${v.line}  ${v.from} → ${v.to}  ${v.rule}: ${explanations[v.rule](v)} ('${v.specifier}')`;
}
