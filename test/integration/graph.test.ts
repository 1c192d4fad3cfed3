/**
 * The code graph read through real sandboxes: a Docker container of the sample image (built by
 * test/integration/setup.sh) and a local working copy of the same repository (a temporary git
 * repository, no Docker needed). The graph must come from one `readTree` transfer, map the
 * sandbox's own absolute paths in tracebacks onto its files, and after a write inside the sandbox
 * re-read and re-parse only the file that changed.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { sandboxSpecSchema, type ExecResult, type PatchResult, type SandboxSpec } from '../../server/src/protocol/index.js';
import { openSandbox, type Command, type ExecOptions, type ReadTreeOptions, type Sandbox, type TreeFile } from '../../server/src/sandbox/index.js';
import { buildCodeGraph } from '../../server/src/graph/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';

const repoRoot = resolve(__dirname, '..', '..');
const sampleRepo = join(repoRoot, 'docker', 'repoenv_sample', 'sample_repo');
const image = 'graph-planner/repoenv-sample:latest';
const run = `test-graph-${process.pid}-${Date.now().toString(36)}`;

/** Delegates to a real sandbox and counts the reads the graph makes through it. */
class CountingSandbox implements Sandbox {
  readTrees = 0;
  readonly readFiles: string[] = [];

  constructor(private readonly inner: Sandbox) {}

  get backend(): 'docker' | 'local' {
    return this.inner.backend;
  }
  get id(): string {
    return this.inner.id;
  }
  get spec(): SandboxSpec {
    return this.inner.spec;
  }
  get workdir(): string {
    return this.inner.workdir;
  }
  get baseCommit(): string {
    return this.inner.baseCommit;
  }
  exec(command: Command, options?: ExecOptions): Promise<ExecResult> {
    return this.inner.exec(command, options);
  }
  readFile(path: string): Promise<Buffer> {
    this.readFiles.push(path);
    return this.inner.readFile(path);
  }
  writeFile(path: string, content: Buffer | string, mode?: number): Promise<void> {
    return this.inner.writeFile(path, content, mode);
  }
  scratchPath(name: string): string {
    return this.inner.scratchPath(name);
  }
  listFiles(dir?: string): Promise<string[]> {
    return this.inner.listFiles(dir);
  }
  readTree(dir?: string, options?: ReadTreeOptions): Promise<TreeFile[]> {
    this.readTrees += 1;
    return this.inner.readTree(dir, options);
  }
  applyPatch(diff: string): Promise<PatchResult> {
    return this.inner.applyPatch(diff);
  }
  diff(): Promise<string> {
    return this.inner.diff();
  }
  reset(): Promise<void> {
    return this.inner.reset();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const opened: Sandbox[] = [];
async function open(backend: 'docker' | 'local'): Promise<CountingSandbox> {
  const sb = await openSandbox(
    sandboxSpecSchema.parse({ ...defaultSandboxOptions(), backend, image, localRepo: sampleRepo, workdir: '/testbed', run, task: `graph-${backend}` }),
  );
  opened.push(sb);
  return new CountingSandbox(sb);
}

after(async () => {
  for (const sb of opened) await sb.close();
  const docker = new Docker();
  const left = await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
  assert.deepEqual(
    left.map((c) => c.Names),
    [],
    'containers of this test run were left behind',
  );
});

const calcUpdate = `"""Arithmetic helpers for the calculator package."""


def add(lhs, rhs):
    """Return the sum of lhs and rhs."""
    return lhs + rhs


def mul(lhs, rhs):
    """Return the product of lhs and rhs."""
    return lhs * rhs


def subtract(lhs, rhs):
    """Return the difference of lhs and rhs."""
    return add(lhs, -rhs)
`;

for (const backend of ['docker', 'local'] as const) {
  describe(`graph through the ${backend} backend`, () => {
    test('builds from one readTree transfer: files, definitions, tests edges and the sandbox text', async () => {
      const sb = await open(backend);
      const progress: Array<[number, number]> = [];
      const graph = await buildCodeGraph(sb, { onProgress: (done, total) => progress.push([done, total]) });
      assert.equal(sb.readTrees, 1);
      assert.deepEqual(sb.readFiles, []);
      const pythonFiles = (await sb.listFiles()).filter((p) => p.endsWith('.py'));
      assert.deepEqual(
        graph
          .nodes()
          .filter((n) => n.kind === 'file')
          .map((n) => n.path),
        pythonFiles,
      );
      assert.deepEqual(progress[progress.length - 1], [pythonFiles.length, pythonFiles.length]);
      assert.equal(graph.fileText('app/calc.py'), (await sb.readFile('app/calc.py')).toString());
      assert.equal(graph.node('func:app/calc.py#add')?.signature, 'def add(lhs, rhs)');
      const tests = graph
        .edges()
        .filter((e) => e.kind === 'tests')
        .map((e) => `${e.src} -> ${e.dst}`);
      assert.ok(tests.includes('func:tests/test_calc.py#test_addition -> func:app/calc.py#add'), tests.join('\n'));
      assert.ok(tests.includes('file:tests/test_calc.py -> file:app/calc.py'), tests.join('\n'));
    });

    test('maps a traceback printed inside the sandbox onto the graph', async () => {
      const sb = await open(backend);
      const graph = await buildCodeGraph(sb);
      const crash = await sb.exec(['python3', '-c', 'import sys; sys.path.insert(0, "."); from app.calc import add; add(1, None)']);
      assert.notEqual(crash.exitCode, 0);
      assert.match(crash.stderr, /File "[^"]*app\/calc\.py", line \d+, in add/);
      const found = graph.localise({ body: crash.stderr });
      assert.equal(found.nodeIds[0], 'func:app/calc.py#add');
      assert.ok(found.frames.some((f) => f.path === 'app/calc.py' && f.inRepo));
    });

    test('after a write in the sandbox, update re-reads and re-parses only that file', async () => {
      const sb = await open(backend);
      const graph = await buildCodeGraph(sb);
      const testIds = graph
        .nodes()
        .filter((n) => n.path.startsWith('tests/'))
        .map((n) => n.id);
      await sb.writeFile('app/calc.py', calcUpdate);
      sb.readFiles.length = 0;
      assert.deepEqual(await graph.update(sb, ['app/calc.py']), ['app/calc.py']);
      assert.equal(sb.readTrees, 1);
      assert.deepEqual(sb.readFiles, ['app/calc.py']);
      assert.equal(graph.fileText('app/calc.py'), calcUpdate);
      assert.deepEqual(graph.node('func:app/calc.py#subtract')?.span, { start: 14, end: 16 });
      assert.ok(graph.edges().some((e) => e.kind === 'calls' && e.src === 'func:app/calc.py#subtract' && e.dst === 'func:app/calc.py#add'));
      assert.ok(graph.edges().some((e) => e.kind === 'tests' && e.src === 'func:tests/test_calc.py#test_addition' && e.dst === 'func:app/calc.py#add'));
      assert.deepEqual(
        graph
          .nodes()
          .filter((n) => n.path.startsWith('tests/'))
          .map((n) => n.id),
        testIds,
      );
      assert.equal(graph.search('difference', 1)[0]?.node.id, 'func:app/calc.py#subtract');
    });
  });
}
