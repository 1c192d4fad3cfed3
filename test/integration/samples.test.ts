/**
 * The sample tasks of `datasets/samples.jsonl`, one per folder of `docker/samples/`: each fails
 * before its fix exactly as its FAIL_TO_PASS and PASS_TO_PASS lists say, and its `gold.diff`
 * resolves it, on the local backend always and in its image when the daemon has the image. No
 * image holds its fix. A brute force over single-token mutations shows that a mutation search can
 * repair five of the samples and that the two meant to resist it (a missing edge case, a missing
 * feature) do.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { imageTag, sampleImageName } from '../../server/src/protocol/index.js';
import { connectDocker, dockerAvailable, openSandbox, sandboxSpecForTask, type Sandbox } from '../../server/src/sandbox/index.js';
import { discoverSamples, readContextFiles, sampleContextEntries } from '../../server/src/sandbox/images/index.js';
import { loadTasks, type TaskEntry } from '../../server/src/tasks/index.js';
import { decodeTestList } from '../../server/src/tasks/index.js';
import { runTaskTests } from '../../server/src/testing/index.js';
import { assertPythonModule } from '../support/hostTools.js';

const root = resolve(__dirname, '..', '..');
const datasetFile = join(root, 'datasets', 'samples.jsonl');
const samplesDir = join(root, 'docker', 'samples');
const runLabel = 'test-samples';
const run = promisify(execFile);

/** The samples a mutation search must not repair: their fixes need a new branch or new logic. */
const mutationProof = new Set(['missing-edge-case', 'needs-new-logic']);

let tasks: TaskEntry[] = [];
let docker: Docker | undefined;

before(async () => {
  const loaded = await loadTasks(datasetFile);
  assert.deepEqual(loaded.problems, []);
  tasks = loaded.tasks.map((t) => t.task);
  if (await dockerAvailable()) docker = (await connectDocker()).docker;
});

after(async () => {
  if (docker === undefined) return;
  const left = await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${runLabel}`] } });
  assert.deepEqual(left, [], 'the sample tests left containers behind');
});

function folderOf(task: TaskEntry): string {
  return task.task_id.replace(/^sample-/, '');
}

function testIds(list: TaskEntry['FAIL_TO_PASS']): readonly string[] {
  const decoded = decodeTestList(list ?? [], 'tests');
  assert.ok(decoded.ok);
  return decoded.tests;
}

/** Why the Docker backend cannot run `task` here, or undefined when it can. */
async function dockerSkipReason(task: TaskEntry): Promise<string | undefined> {
  if (docker === undefined) return 'no Docker daemon answers';
  const image = task.sandbox.docker_image ?? '';
  const present = await docker
    .getImage(image)
    .inspect()
    .then(() => true)
    .catch(() => false);
  return present ? undefined : `${image} is missing: build it with gp images build samples`;
}

test('the dataset has one task per sample folder, with its image, its local copy, a gold diff and every test graded', async () => {
  const { samples, skipped } = await discoverSamples(join(root, 'docker'));
  assert.deepEqual(skipped, []);
  assert.ok(samples.length >= 7, `only ${samples.length} samples`);
  assert.deepEqual(tasks.map((t) => t.task_id).sort(), samples.map((s) => s.name).sort());
  for (const task of tasks) {
    const folder = folderOf(task);
    assert.equal(task.sandbox.docker_image, imageTag(sampleImageName(folder)));
    assert.equal(resolve(root, 'datasets', task.sandbox.local_repo ?? ''), join(samplesDir, folder, 'repo'));
    assert.ok(existsSync(join(samplesDir, folder, 'gold.diff')), `${folder} has a gold.diff`);
    // Every test of the command is graded, so "all tests pass" and "resolved" mean the same below.
    const testFile = /(tests\/\S+\.py)$/.exec(task.sandbox.test_command ?? '')?.[1] ?? '';
    const defined = [...readFileSync(join(samplesDir, folder, 'repo', testFile), 'utf8').matchAll(/^def (test_\w+)/gm)].map(
      (m) => `${testFile}::${m[1] ?? ''}`,
    );
    assert.deepEqual([...testIds(task.FAIL_TO_PASS), ...testIds(task.PASS_TO_PASS)].sort(), defined.sort());
    assert.ok(testIds(task.FAIL_TO_PASS).length >= 1 && testIds(task.PASS_TO_PASS).length >= 2);
  }
});

test('no issue text quotes a line its gold fix adds', () => {
  for (const task of tasks) {
    const folder = join(samplesDir, folderOf(task));
    const diff = readFileSync(join(folder, 'gold.diff'), 'utf8');
    const file = /^\+\+\+ b\/(\S+)$/m.exec(diff)?.[1] ?? '';
    const buggy = readFileSync(join(folder, 'repo', file), 'utf8');
    // Lines the fix only moves (a docstring rewrapped) are in the buggy file already; the rest are new.
    const added = diff
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .map((l) => l.slice(1).trim())
      .filter((l) => l.length > 6 && !buggy.includes(l));
    assert.ok(added.length > 0, `${task.task_id}'s gold.diff adds a line`);
    const text = `${task.issue?.title ?? ''}\n${task.issue?.body ?? ''}`;
    for (const line of added) assert.ok(!text.includes(line), `${task.task_id}'s issue quotes its fix: ${line}`);
  }
});

/** Runs the task's tests before and after `gold.diff` in one sandbox and checks both grades. */
async function checkFailsThenResolves(task: TaskEntry, sandbox: Sandbox): Promise<void> {
  const unfixed = await runTaskTests(sandbox, task, { timeoutMs: defaultSandboxOptions().testTimeoutMs });
  for (const id of testIds(task.FAIL_TO_PASS)) assert.match(unfixed.parsed.tests.get(id) ?? 'missing', /^(FAILED|ERROR)$/, `${id} fails before the fix`);
  for (const id of testIds(task.PASS_TO_PASS)) assert.equal(unfixed.parsed.tests.get(id), 'PASSED', `${id} passes before the fix`);
  assert.equal(unfixed.record.grade.kind === 'swebench' && unfixed.record.grade.report.resolved, false);
  const patch = await sandbox.applyPatch(readFileSync(join(samplesDir, folderOf(task), 'gold.diff'), 'utf8'));
  assert.equal(patch.applied, true, patch.message);
  const fixed = await runTaskTests(sandbox, task, { timeoutMs: defaultSandboxOptions().testTimeoutMs });
  assert.equal(fixed.record.grade.kind === 'swebench' && fixed.record.grade.report.resolved, true, fixed.output);
}

for (const backend of ['local', 'docker'] as const) {
  test(`every sample fails before its fix and is resolved by gold.diff on the ${backend} backend`, async (t) => {
    for (const task of tasks) {
      await t.test(task.task_id, async (st) => {
        const reason = backend === 'docker' ? await dockerSkipReason(task) : undefined;
        if (reason !== undefined) {
          st.skip(reason);
          return;
        }
        const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend, baseDir: join(root, 'datasets'), run: runLabel }));
        try {
          assert.equal(sandbox.backend, backend);
          await checkFailsThenResolves(task, sandbox);
        } finally {
          await sandbox.close();
        }
      });
    }
  });
}

test('the fix stays out of every sample image and out of the context that builds it', async (t) => {
  for (const task of tasks) {
    const dir = join(samplesDir, folderOf(task));
    const context = await readContextFiles(dir, sampleContextEntries);
    assert.ok(context.some((f) => f.name === 'Dockerfile'));
    assert.ok(!context.some((f) => f.name.endsWith('gold.diff')), `${task.task_id}'s context holds gold.diff`);
    assert.match(readFileSync(join(dir, 'Dockerfile'), 'utf8'), /^COPY repo\/ \/testbed\/$/m);
  }
  for (const task of tasks) {
    const dir = join(samplesDir, folderOf(task));
    await t.test(task.task_id, async (st) => {
      const reason = await dockerSkipReason(task);
      if (reason !== undefined || docker === undefined) {
        st.skip(reason);
        return;
      }
      const sandbox = await openSandbox(
        sandboxSpecForTask(task, { ...defaultSandboxOptions(), backend: 'docker', baseDir: join(root, 'datasets'), run: runLabel }),
      );
      try {
        const found = await sandbox.exec('find / -xdev -name gold.diff; git ls-files');
        assert.equal(found.exitCode, 0, found.stderr);
        const repoFiles = listRepo(join(dir, 'repo'));
        assert.deepEqual(found.stdout.trim().split('\n').sort(), repoFiles, 'the image holds the repository and no gold.diff');
      } finally {
        await sandbox.close();
      }
    });
  }
});

/** The repository's files as `git ls-files` lists them, caches left out. */
function listRepo(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    if (entry.name === '__pycache__' || entry.name === '.pytest_cache') continue;
    const name = prefix.length === 0 ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listRepo(dir, name));
    else out.push(name);
  }
  return out.sort();
}

/**
 * The brute force, in Python because it reads Python: every single-token mutation of the kinds
 * the rule agent tries (arithmetic operators, comparisons, integer constants ±1, `± 1` dropped and
 * `len(x)` ± 1, two positional arguments of a call swapped, a condition negated, `and`/`or`,
 * `is`/`is not`, `in`/`not in`), in every module of the package (a superset of the buggy
 * functions), each run against the task's tests with real pytest. Each mutant runs in a forked
 * child of a process that has imported pytest but not the package, so nothing one mutant imports
 * reaches the next, and bytecode is never written, so no stale `.pyc` can stand in for a mutant.
 */
const mutationSearch = String.raw`
import ast, io, itertools, json, os, re, shutil, signal, sys, tempfile, tokenize
sys.dont_write_bytecode = True
import pytest

ARITH = ["+", "-", "*", "/", "//", "%"]
GROUPS = ((ARITH, "arithmetic"), ([op + "=" for op in ARITH], "arithmetic"), (["<", "<=", ">", ">=", "==", "!="], "comparison"))

def mutants(source):
    lines = source.splitlines(keepends=True)
    starts = list(itertools.accumulate([0] + [len(l) for l in lines]))
    def at(row, col_bytes):
        return starts[row - 1] + len(lines[row - 1].encode()[:col_bytes].decode())
    def span(node):
        return at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)
    def tspan(tok):
        return starts[tok.start[0] - 1] + tok.start[1], starts[tok.end[0] - 1] + tok.end[1]
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip]
    edits = []
    for i, tok in enumerate(tokens):
        s, e = tspan(tok)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        prev = tokens[i - 1] if i > 0 else None
        for group, kind in GROUPS:
            if tok.type == tokenize.OP and tok.string in group:
                edits += [(kind, s, e, other) for other in group if other != tok.string]
        if tok.type == tokenize.NUMBER and re.fullmatch(r"\d+", tok.string):
            edits += [("constant", s, e, str(v)) for v in (int(tok.string) - 1, int(tok.string) + 1) if v >= 0]
        if tok.type == tokenize.NAME and tok.string in ("and", "or"):
            edits.append(("condition", s, e, "or" if tok.string == "and" else "and"))
        if tok.type == tokenize.NAME and tok.string == "is":
            if nxt is not None and nxt.string == "not":
                edits.append(("condition", s, tspan(nxt)[1], "is"))
            else:
                edits.append(("condition", s, e, "is not"))
        if tok.type == tokenize.NAME and tok.string == "in":
            if prev is not None and prev.string == "not":
                edits.append(("condition", tspan(prev)[0], e, "in"))
            else:
                edits.append(("condition", s, e, "not in"))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            args = [a for a in node.args if not isinstance(a, ast.Starred)]
            for a, b in itertools.combinations(args, 2):
                (a0, a1), (b0, b1) = span(a), span(b)
                edits.append(("swap", a0, b1, source[b0:b1] + source[a1:b0] + source[a0:a1]))
            if isinstance(node.func, ast.Name) and node.func.id == "len":
                s, e = span(node)
                edits += [("off-by-one", s, e, "(" + source[s:e] + " " + op + " 1)") for op in "-+"]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(node.right, ast.Constant) and node.right.value == 1:
            (s, e), (ls, le) = span(node), span(node.left)
            edits.append(("off-by-one", s, e, source[ls:le]))
        tests = [node.test] if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) else []
        tests += node.ifs if isinstance(node, ast.comprehension) else []
        for cond in tests:
            s, e = span(cond)
            if isinstance(cond, ast.UnaryOp) and isinstance(cond.op, ast.Not):
                os_, oe = span(cond.operand)
                edits.append(("condition", s, e, "(" + source[os_:oe] + ")"))
            else:
                edits.append(("condition", s, e, "not (" + source[s:e] + ")"))
    seen = {source}
    for kind, s, e, text in edits:
        mutated = source[:s] + text + source[e:]
        if mutated in seen:
            continue
        seen.add(mutated)
        try:
            compile(mutated, "<mutant>", "exec")
        except SyntaxError:
            continue
        yield "%s at line %d: %r -> %r" % (kind, source.count("\n", 0, s) + 1, source[s:e], text), mutated

def passes(copy, tests):
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            os.chdir(copy)
            sys.path.insert(0, copy)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            signal.alarm(20)
            code = int(pytest.main(["-q", "-x", "-p", "no:cacheprovider", *tests]))
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0

repo, tests = sys.argv[1], sys.argv[2:]
work = tempfile.mkdtemp(prefix="gp-mutants-")
copy = os.path.join(work, "repo")
shutil.copytree(repo, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".git"))
modules = sorted(os.path.relpath(os.path.join(d, f), copy) for d, _, fs in os.walk(copy) for f in fs
                 if f.endswith(".py") and not os.path.relpath(os.path.join(d, f), copy).startswith("tests" + os.sep))
tried, resolving = 0, []
try:
    assert not passes(copy, tests), "the unmutated repository already passes"
    for module in modules:
        path = os.path.join(copy, module)
        with open(path) as f:
            original = f.read()
        for description, mutated in mutants(original):
            with open(path, "w") as f:
                f.write(mutated)
            tried += 1
            if passes(copy, tests):
                resolving.append(module + ": " + description)
        with open(path, "w") as f:
            f.write(original)
finally:
    shutil.rmtree(work, ignore_errors=True)
print(json.dumps({"modules": modules, "tried": tried, "resolving": resolving}))
`;
import { defaultSandboxOptions } from '../../server/src/launch/index.js';

interface MutationReport {
  modules: string[];
  tried: number;
  resolving: string[];
}

test('a single-token mutation resolves the five mutation samples, and none resolves missing-edge-case or needs-new-logic', async (t) => {
  assertPythonModule('pytest', 'python3-pytest');
  for (const task of tasks) {
    const folder = folderOf(task);
    await t.test(task.task_id, async () => {
      const tests = [...testIds(task.FAIL_TO_PASS), ...testIds(task.PASS_TO_PASS)];
      const { stdout } = await run('python3', ['-c', mutationSearch, join(samplesDir, folder, 'repo'), ...tests], { timeout: 300_000 });
      const report = JSON.parse(stdout) as MutationReport;
      assert.ok(report.tried >= 30, `only ${report.tried} mutants of ${report.modules.join(', ')}`);
      if (mutationProof.has(folder)) assert.deepEqual(report.resolving, [], `mutations that resolve ${task.task_id}`);
      else assert.notDeepEqual(report.resolving, [], `no mutation of ${report.tried} resolves ${task.task_id}`);
    });
  }
});
