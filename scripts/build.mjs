// Bundles the entry points with esbuild. Each bundle is self-contained so the packaged .vsix needs
// no node_modules folder (vsce runs with --no-dependencies): CommonJS for Node, and an IIFE for the
// webview, which runs in the browser.
import { build } from 'esbuild';
import { chmod, mkdir } from 'node:fs/promises';

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
  external: ['cpu-features', '*.node'],
};

const watch = process.argv.includes('--watch');
const minify = !process.argv.includes('--no-minify');

await mkdir('dist', { recursive: true });
const entries = [
  { entryPoints: ['extension/src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', ...common.external] },
  { entryPoints: ['server/src/main.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];
const webview = {
  ...common,
  platform: 'browser',
  target: 'chrome120',
  format: 'iife',
  entryPoints: ['webview/src/main.ts'],
  outfile: 'dist/webview.js',
};
await Promise.all([...entries.map((entry) => build({ ...common, minify, ...entry })), build({ ...webview, minify })]);
await chmod('dist/cli.js', 0o755);
if (watch) console.log('Watch mode is not supported; re-run npm run build.');
