// Bundles the entry points with esbuild. Each bundle is self-contained so the packaged .vsix needs
// no node_modules folder (vsce runs with --no-dependencies): CommonJS for Node, and an IIFE for the
// webview, which runs in the browser.
import { build } from 'esbuild';
import { chmod, copyFile, mkdir } from 'node:fs/promises';
import { precompiledValidators } from './precompiledValidators.mjs';

// zod's translations of its messages (a quarter of the extension bundle's bytes, parsed at every
// activation; docs/benchmarks.md): nothing here selects one, and its English messages come from
// zod's own default, which stays.
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(build) {
    build.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
  // dockerode reaches ssh:// engines through ssh2, which tries two optional native add-ons inside
  // try/catch and falls back to JavaScript. Left out of the bundle, they are simply not found.
  // onnxruntime-node finds its native add-on relative to its own files, so it stays in node_modules.
  external: ['cpu-features', '*.node', 'onnxruntime-node'],
  // jsonc-parser's `main` is a UMD wrapper whose requires esbuild cannot follow (the bundle would
  // fail at run time with MODULE_NOT_FOUND); its ES module build bundles whole.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  // The experiment schema's validators as ajv's generated code, not compiled at every start (server/src/util/ajvValidators.ts).
  plugins: [precompiledValidators(process.cwd()), withoutZodLocales],
};

// The language client library is most of what loading the extension costs, and nothing needs it
// before a server starts (extension/src/languageClientLib.ts): the extension's bundle reaches it
// as `./languageClient.js` beside itself, a bundle of its own, loaded on first use.
const languageClientApart = {
  name: 'language-client-apart',
  setup(build) {
    // The import becomes a `require` (`supported` below): the extension host loads CommonJS, and
    // Node's `import()` of a CommonJS bundle would not see its named exports.
    build.onResolve({ filter: /^vscode-languageclient\/node$/ }, () => ({ path: './languageClient.js', external: true }));
  },
};
/** The packages that must stay out of the extension's bundle, with the reason. */
const keptOutOfExtension = /node_modules[\\/](vscode-languageclient|vscode-jsonrpc|vscode-languageserver-protocol)[\\/]/;

const watch = process.argv.includes('--watch');
const minify = !process.argv.includes('--no-minify');

await mkdir('dist', { recursive: true });
const entries = [
  {
    entryPoints: ['extension/src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode', ...common.external],
    plugins: [...common.plugins, languageClientApart],
    metafile: true,
    supported: { 'dynamic-import': false },
  },
  { entryPoints: ['node_modules/vscode-languageclient/lib/node/main.js'], outfile: 'dist/languageClient.js', external: ['vscode', ...common.external] },
  { entryPoints: ['server/src/main.ts'], outfile: 'dist/server.js' },
  // The language server checks large experiment YAMLs on a thread of its own (server/src/config/checkWorker.ts).
  { entryPoints: ['server/src/config/checkWorkerMain.ts'], outfile: 'dist/configCheckWorker.js' },
  { entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];
// The webview pages: the experiment overview, the trajectory viewer, the episode comparison, the group view, a run's metrics, a run's report and an episode on the code graph.
const browser = { ...common, platform: 'browser', target: 'chrome120', format: 'iife' };
const pages = [
  { entryPoints: ['webview/src/main.ts'], outfile: 'dist/webview.js' },
  { entryPoints: ['webview/src/episode/main.ts'], outfile: 'dist/episode.js' },
  { entryPoints: ['webview/src/compare/main.ts'], outfile: 'dist/compare.js' },
  { entryPoints: ['webview/src/group/main.ts'], outfile: 'dist/group.js' },
  { entryPoints: ['webview/src/metrics/main.ts'], outfile: 'dist/metrics.js' },
  { entryPoints: ['webview/src/report/main.ts'], outfile: 'dist/report.js' },
  { entryPoints: ['webview/src/codeGraph/main.ts'], outfile: 'dist/codeGraph.js' },
];
const [extension] = await Promise.all([
  ...entries.map((entry) => build({ ...common, minify, ...entry })),
  ...pages.map((page) => build({ ...browser, minify, ...page })),
]);
// A value imported statically from the library would pull it back into the extension's bundle
// and into every activation; the build says so rather than letting the figure drift.
const pulledIn = Object.keys(extension.metafile.outputs['dist/extension.js'].inputs).filter((input) => keptOutOfExtension.test(input));
if (pulledIn.length > 0) {
  console.error(`dist/extension.js must not contain the language client library, but it bundles ${pulledIn[0]} (and ${pulledIn.length - 1} more files).`);
  console.error('Import it with `import type` and reach its values through loadLanguageClientLib() (extension/src/languageClientLib.ts).');
  process.exit(1);
}
await chmod('dist/cli.js', 0o755);
// The code graph's parser is tree-sitter compiled to WebAssembly; its runtime and the Python grammar
// are looked up next to the bundle (server/src/graph/parser.ts), so they ship beside it.
await copyFile('node_modules/web-tree-sitter/tree-sitter.wasm', 'dist/tree-sitter.wasm');
await copyFile('node_modules/tree-sitter-python/tree-sitter-python.wasm', 'dist/tree-sitter-python.wasm');
if (watch) console.log('Watch mode is not supported; re-run npm run build.');
