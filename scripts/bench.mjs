// `npm run bench`: builds the bundles so the figures measure the current source, then runs the
// harness (bench/main.ts) through tsx. When the full build fails because another entry point (the
// extension or the CLI) is broken, only the server bundle is built, with the same esbuild options as
// scripts/build.mjs, because it is the only bundle the benchmarks run. When that fails too, the run
// goes on: the anchors are still measured and our server is listed as not measured.
// Pass `--no-build` to skip building; other arguments go to the harness (`--only yaml --edits 30`).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { precompiledValidators } from './precompiledValidators.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const serverBundle = join(root, 'dist', 'server.js');

async function buildServerOnly() {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'server', 'src', 'main.ts')],
    outfile: serverBundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'linked',
    logLevel: 'error',
    legalComments: 'none',
    minify: true,
    plugins: [precompiledValidators(root)],
  });
}

// Set when our server could not be built: the harness then skips it rather than measure an old bundle.
let oursUnavailable = '';
if (!args.includes('--no-build')) {
  const full = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (full.status !== 0) {
    console.log(`bench: node scripts/build.mjs failed (exit ${full.status ?? full.signal}); building dist/server.js alone`);
    try {
      await buildServerOnly();
    } catch (error) {
      oursUnavailable = `server/src/main.ts does not build: ${String(error).split('\n')[0]}`;
      console.log(`bench: ${oursUnavailable}; our server will be listed as not measured`);
    }
  }
}

const harness = spawnSync(process.execPath, ['--import', 'tsx', 'bench/main.ts', ...args.filter((a) => a !== '--no-build')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, GP_BENCH_OURS_UNAVAILABLE: oursUnavailable },
});
// The harness exits 0 whatever the figures say; a non-zero status means the harness itself broke.
process.exit(harness.status ?? 1);
