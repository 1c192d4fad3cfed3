/**
 * The Python parser: tree-sitter's Python grammar compiled to WebAssembly, run by
 * `web-tree-sitter`. We use the wasm build rather than the native `tree-sitter` binding because:
 *
 * - it runs unchanged inside VS Code's Electron-hosted server and in any Node, with no
 *   ABI-specific native build and no prebuild download at install time;
 * - it packages into the .vsix as two files (`tree-sitter.wasm`, `tree-sitter-python.wasm`) next
 *   to the bundle, which `scripts/build.mjs` copies into `dist/`;
 * - `tree.delete()` frees each tree at once, whereas the native binding frees trees only when the
 *   event loop gets a turn: repeated synchronous passes over sympy grew to 10 GB there.
 *
 * It parses somewhat slower: measured here, about 5.7 to 7 MB/s of Python against about 8 MB/s
 * for the native binding; `bench/graphFigures.ts` keeps the whole build within 1.5 times this parse.
 *
 * One parser per process, initialised on first use; every caller deletes its trees.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Language, Parser, Tree } from 'web-tree-sitter';
// A require-style import, so that bundlers pick the package's CommonJS build (`tree-sitter.cjs`),
// as Node does: its ES-module build finds its files through `import.meta.url`, which a CommonJS
// bundle does not have.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- The CommonJS build is the point here.
import TreeSitter = require('web-tree-sitter');

/** The two wasm files and the package each ships in when running from sources. */
const wasmFiles = {
  runtime: { file: 'tree-sitter.wasm', pkg: 'web-tree-sitter' },
  python: { file: 'tree-sitter-python.wasm', pkg: 'tree-sitter-python' },
} as const;

/**
 * Where a wasm file is: next to this module (the bundle in `dist/`, where the build copies it), or
 * in a `node_modules` folder above it (running the TypeScript sources with tsx).
 */
export function locateWasm(which: keyof typeof wasmFiles, from: string = __dirname): string {
  const { file, pkg } = wasmFiles[which];
  const beside = join(from, file);
  if (existsSync(beside)) return beside;
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', pkg, file);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(
    `Cannot find ${file}: it should be next to the bundle (${beside}) or in node_modules/${pkg}. Rebuild with npm run build, or reinstall the dependencies.`,
  );
}

export interface PythonParser {
  readonly parser: Parser;
  readonly language: Language;
}

let loading: Promise<PythonParser> | undefined;

async function load(): Promise<PythonParser> {
  const runtime = locateWasm('runtime');
  await TreeSitter.Parser.init({ locateFile: () => runtime });
  const language = await TreeSitter.Language.load(locateWasm('python'));
  const parser = new TreeSitter.Parser();
  parser.setLanguage(language);
  return { parser, language };
}

/** The process's Python parser, created on first use. A failed load is retried next time. */
export function pythonParser(): Promise<PythonParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Parses `text` and hands the tree to `use`, deleting it afterwards whatever happens, so no tree
 * outlives the call. Parsing is synchronous; callers yield between files themselves.
 */
export function withTree<T>(python: PythonParser, text: string, use: (tree: Tree) => T): T {
  const tree = python.parser.parse(text);
  if (tree === null) throw new Error('tree-sitter returned no tree (the parser has no language set)');
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}

/** Lets other work (LSP requests, timers) run between batches of synchronous parsing. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}
