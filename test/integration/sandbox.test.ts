/**
 * The Sandbox contract against real backends: a real Docker Engine running the sample image
 * (built by test/integration/setup.sh), and the local backend on a working copy of the same
 * repository. Every scenario that applies to both runs on both.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { sandboxSpecSchema, testRunRecordSchema, swebenchReportSchema, type SandboxSpecInput } from '../../server/src/protocol/index.js';
import { DockerSandbox, LocalSandbox, openSandbox, SandboxError, type Sandbox } from '../../server/src/sandbox/index.js';
import { recordTestRun } from '../../server/src/runs/index.js';
import { runTaskTests } from '../../server/src/testing/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';

const repoRoot = resolve(__dirname, '..', '..');
const sampleRepo = join(repoRoot, 'docker', 'repoenv_sample', 'sample_repo');
const image = 'graph-planner/repoenv-sample:latest';
const run = `test-sandbox-${process.pid}-${Date.now().toString(36)}`;

const fix = `--- a/app/calc.py
+++ b/app/calc.py
@@ -4,4 +4,4 @@
 def add(lhs, rhs):
     """Return the sum of lhs and rhs."""
-    return lhs - rhs
+    return lhs + rhs
 
`;

const stale = `--- a/app/calc.py
+++ b/app/calc.py
@@ -4,4 +4,4 @@
 def add(lhs, rhs):
     """Return the sum of lhs and rhs."""
-    return lhs * rhs
+    return lhs + rhs
 
`;

const sampleTask = taskEntrySchema.parse({
  task_id: 'sample-calc-add',
  sandbox: { docker_image: image, workdir: '/testbed', test_command: 'python -m pytest -rA tests/test_calc.py' },
  FAIL_TO_PASS: ['tests/test_calc.py::test_addition'],
  PASS_TO_PASS: ['tests/test_calc.py::test_multiplication'],
});

function spec(backend: 'docker' | 'local', extra: Partial<SandboxSpecInput> = {}) {
  return sandboxSpecSchema.parse({
    ...defaultSandboxOptions(),
    backend,
    image,
    localRepo: sampleRepo,
    workdir: '/testbed',
    run,
    task: `sample-${backend}`,
    ...extra,
  });
}

async function snapshot(sb: Sandbox): Promise<Map<string, string>> {
  const files = await sb.readTree('.');
  return new Map(files.map((f) => [f.path, f.content.toString('base64')]));
}

const opened: Sandbox[] = [];
async function open(backend: 'docker' | 'local', extra: Partial<SandboxSpecInput> = {}): Promise<Sandbox> {
  const sb = await openSandbox(spec(backend, extra));
  opened.push(sb);
  return sb;
}

after(async () => {
  for (const sb of opened) await sb.close();
  // The suite must end with none of its containers left.
  const docker = new Docker();
  const left = await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
  assert.deepEqual(
    left.map((c) => c.Names),
    [],
    'containers of this test run were left behind',
  );
});

for (const backend of ['docker', 'local'] as const) {
  describe(`${backend} backend`, () => {
    test('runs argv and shell commands with exit codes, separate streams, env and cwd', async () => {
      const sb = await open(backend);
      const r = await sb.exec('echo out; echo err >&2; exit 7');
      assert.deepEqual([r.exitCode, r.stdout, r.stderr, r.timedOut, r.truncated], [7, 'out\n', 'err\n', false, false]);
      const argv = await sb.exec(['printf', '%s', '$HOME; a b'], {});
      assert.equal(argv.stdout, '$HOME; a b');
      const env = await sb.exec('echo "$GREETING" && pwd', { env: { GREETING: 'hi there' }, cwd: 'app' });
      assert.equal(env.stdout.split('\n')[0], 'hi there');
      assert.equal(env.stdout.trim().split('\n')[1], `${sb.workdir}/app`);
      // Many commands in a row keep their own output and exit code.
      for (let i = 0; i < 30; i++) {
        const x = await sb.exec(`printf ${i}; printf e${i} >&2; exit ${i % 5}`);
        assert.deepEqual([x.stdout, x.stderr, x.exitCode], [String(i), `e${i}`, i % 5]);
      }
      const noNewline = await sb.exec('printf "no newline at end"');
      assert.equal(noNewline.stdout, 'no newline at end');
      // Streaming: the callback sees the kept output as it arrives, stream by stream.
      const chunks: string[] = [];
      const streamed = await sb.exec('for i in 1 2 3; do echo line$i; sleep 0.05; done; echo warn >&2', {
        onOutput: (c) => chunks.push(`${c.stream}:${c.text}`),
      });
      assert.equal(
        chunks
          .filter((c) => c.startsWith('stdout:'))
          .map((c) => c.slice(7))
          .join(''),
        streamed.stdout,
      );
      assert.deepEqual(
        chunks.filter((c) => c.startsWith('stderr:')),
        ['stderr:warn\n'],
      );
    });

    test('kills a command past its timeout, with its children, and stays usable', async () => {
      const sb = await open(backend);
      const marker = backend === 'docker' ? '/tmp/late-marker' : join(sb.workdir, 'late-marker');
      const r = await sb.exec(`(sleep 1.5; echo late > ${marker}) & sleep 30`, { timeoutMs: 400 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, null);
      assert.ok(r.durationMs < 5000, `took ${r.durationMs} ms`);
      const ok = await sb.exec('echo still here');
      assert.equal(ok.stdout, 'still here\n');
      await new Promise((done) => setTimeout(done, 1800));
      const check = await sb.exec(`test -e ${marker} && echo present || echo absent`);
      assert.equal(check.stdout.trim(), 'absent', 'a child of the timed-out command survived the kill');
    });

    test('caps 100 MB of output without holding it in memory', async () => {
      const sb = await open(backend);
      global.gc?.();
      const before = process.memoryUsage().rss;
      const r = await sb.exec("head -c 100000000 /dev/zero | tr '\\0' a; echo tail >&2");
      const grown = process.memoryUsage().rss - before;
      assert.equal(r.exitCode, 0);
      assert.equal(r.stdoutBytes, 100_000_000);
      assert.equal(r.truncated, true);
      assert.ok(r.stdout.length < 1_100_000, `kept ${r.stdout.length} chars`);
      assert.match(r.stdout, /output truncated, 98951424 more bytes dropped/);
      assert.equal(r.stderr, 'tail\n');
      assert.ok(grown < 80 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1e6)} MB`);
    });

    test('reads, writes and lists files, and reads the whole tree in one transfer', async () => {
      const sb = await open(backend);
      await sb.writeFile('new/dir/hello.txt', 'hello\n');
      assert.equal((await sb.readFile('new/dir/hello.txt')).toString(), 'hello\n');
      assert.equal((await sb.readFile(`${sb.workdir}/app/calc.py`)).toString(), readFileSync(join(sampleRepo, 'app', 'calc.py'), 'utf8'));
      const listed = await sb.listFiles();
      assert.ok(listed.includes('app/calc.py') && listed.includes('new/dir/hello.txt'), listed.join(', '));
      assert.ok(!listed.some((p) => p.startsWith('.git/')));
      const tree = await sb.readTree('.', { include: (p) => p.endsWith('.py') });
      assert.deepEqual(
        tree.map((f) => f.path),
        listed.filter((p) => p.endsWith('.py')),
      );
      await assert.rejects(sb.readFile('no/such/file.py'), SandboxError);
    });

    test('applies a patch, diffs against the base with new files, and resets', async () => {
      const sb = await open(backend);
      assert.match(sb.baseCommit, /^[0-9a-f]{40}$/);
      const result = await sb.applyPatch(fix);
      assert.equal(result.applied, true, result.message);
      assert.deepEqual(result.files, ['app/calc.py']);
      await sb.writeFile('notes.txt', 'new file\n');
      const diff = await sb.diff();
      assert.match(diff, /\+ {4}return lhs \+ rhs/);
      assert.match(diff, /new file mode 100644[\s\S]*\+\+\+ b\/notes.txt/);
      await sb.reset();
      assert.equal(await sb.diff(), '');
      assert.ok(!(await sb.listFiles()).includes('notes.txt'));
    });

    test('applies small and large patches byte for byte, whatever shell syntax their lines hold', async () => {
      const sb = await open(backend);
      // A small patch travels inside the command as a here-document, a large one as a file first.
      const hostile = ['echo $HOME `id` $(id) \\n \'q\' "d"', 'GP_PATCH_x', 'EOF', '\tindented\r', '\\'];
      const large = Array.from({ length: 3000 }, (_, i) => `line ${i} ${'x'.repeat(30)}`);
      for (const [name, lines] of [
        ['small.txt', hostile],
        ['large.txt', [...hostile, ...large]],
      ] as const) {
        const patch = `--- /dev/null\n+++ b/${name}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}\n`).join('')}`;
        const result = await sb.applyPatch(patch);
        assert.equal(result.applied, true, result.message);
        assert.equal((await sb.readFile(name)).toString('utf8'), lines.map((l) => `${l}\n`).join(''));
      }
      await sb.reset();
    });

    test('leaves the repository byte for byte unchanged when a patch does not apply', async () => {
      const sb = await open(backend);
      const two = `${fix}--- a/app/__init__.py\n+++ b/app/__init__.py\n@@ -1 +1 @@\n-this line is not there\n+x\n`;
      const before = await snapshot(sb);
      const result = await sb.applyPatch(two);
      assert.equal(result.applied, false);
      assert.deepEqual(
        result.rejected.map((h) => h.path),
        ['app/__init__.py'],
      );
      assert.deepEqual(await snapshot(sb), before);
      const wrong = await sb.applyPatch(stale);
      assert.equal(wrong.applied, false);
      assert.deepEqual(wrong.rejected, [{ path: 'app/calc.py', line: 4, message: 'the hunk does not match the file at this line' }]);
      assert.deepEqual(await snapshot(sb), before);
      assert.equal(await sb.diff(), '');
    });

    test('refuses patches that touch ../outside or an absolute path', async () => {
      const sb = await open(backend);
      const outside = await sb.applyPatch('--- a/../outside.txt\n+++ b/../outside.txt\n@@ -0,0 +1 @@\n+x\n');
      assert.equal(outside.applied, false);
      assert.match(outside.refused ?? '', /leaves the repository/);
      const absolute = await sb.applyPatch('--- /etc/hostname\n+++ /etc/hostname\n@@ -1 +1 @@\n-a\n+b\n');
      assert.match(absolute.refused ?? '', /absolute path/);
      assert.equal(await sb.diff(), '');
    });

    test('runs the task tests, grades them per test, and records the run', async () => {
      const sb = await open(backend);
      const runDir = await mkdtemp(join(tmpdir(), 'gp-testrun-'));
      try {
        const before = await runTaskTests(sb, sampleTask, { timeoutMs: defaultSandboxOptions().testTimeoutMs });
        await recordTestRun(runDir, before);
        assert.equal(before.record.tests['tests/test_calc.py::test_addition'], 'FAILED');
        assert.equal(before.record.tests['tests/test_calc.py::test_multiplication'], 'PASSED');
        assert.equal(before.record.grade.kind === 'swebench' && before.record.grade.report.resolved, false);
        assert.equal((await sb.applyPatch(fix)).applied, true);
        const after = await runTaskTests(sb, sampleTask, { patch: fix, timeoutMs: defaultSandboxOptions().testTimeoutMs });
        await recordTestRun(runDir, after);
        assert.equal(after.record.grade.kind, 'swebench');
        assert.equal(after.record.grade.kind === 'swebench' && after.record.grade.resolution, 'RESOLVED_FULL');
        const lines = readFileSync(join(runDir, 'test_runs.jsonl'), 'utf8').trim().split('\n');
        assert.equal(lines.length, 2);
        const record = testRunRecordSchema.parse(JSON.parse(lines[1] ?? ''));
        assert.equal(record.backend, backend);
        assert.ok(record.logPath && existsSync(join(runDir, record.logPath)));
        assert.match(readFileSync(join(runDir, record.logPath ?? ''), 'utf8'), /short test summary info/);
        const report = swebenchReportSchema.parse(JSON.parse(readFileSync(join(runDir, record.reportPath ?? ''), 'utf8')));
        assert.deepEqual(report['sample-calc-add']?.tests_status?.FAIL_TO_PASS, { success: ['tests/test_calc.py::test_addition'], failure: [] });
        assert.equal(report['sample-calc-add']?.resolved, true);
      } finally {
        await rm(runDir, { recursive: true, force: true });
      }
    });

    test('closing twice is harmless and a closed sandbox says so', async () => {
      const sb = await open(backend);
      await sb.close();
      await sb.close();
      await assert.rejects(sb.exec('true'), (e: unknown) => e instanceof SandboxError && e.code === 'closed');
    });
  });
}

describe('docker backend only', () => {
  test('labels the container, cuts the network and applies resource limits', async () => {
    const sb = (await open('docker', { limits: { memoryBytes: 256 * 1024 * 1024, cpus: 0.5, pids: 128 } })) as DockerSandbox;
    const info = await sb.client.getContainer(sb.id).inspect();
    assert.equal(info.Config.Labels['graph-planner.run'], run);
    assert.equal(info.Config.Labels['graph-planner.task'], 'sample-docker');
    assert.equal(info.Config.Labels['graph-planner.pid'], String(process.pid));
    assert.equal(info.HostConfig.NetworkMode, 'none');
    assert.equal(info.HostConfig.Memory, 256 * 1024 * 1024);
    assert.equal(info.HostConfig.NanoCpus, 500_000_000);
    assert.equal(info.HostConfig.PidsLimit, 128);
    const net = await sb.exec('python3 -c "import socket; socket.create_connection((\'10.0.0.1\', 80), timeout=2)"');
    assert.notEqual(net.exitCode, 0);
    assert.match(net.stderr, /Network is unreachable|OSError/);
  });

  test('files go through the command session byte for byte, with their mode, a link replaced rather than written through, a large file through the archive endpoint, and a missing file named', async () => {
    const sb = await open('docker');
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    await sb.writeFile('bin/tool', bytes, 0o755);
    assert.deepEqual(await sb.readFile('bin/tool'), bytes);
    assert.equal((await sb.exec(['stat', '-c', '%a', 'bin/tool'])).stdout.trim(), '755');
    await sb.writeFile('plain.txt', 'text\n');
    assert.equal((await sb.exec(['stat', '-c', '%a', 'plain.txt'])).stdout.trim(), '644');
    await sb.exec(['ln', '-s', '/tmp/link-target', 'link.txt']);
    await sb.writeFile('link.txt', 'not through the link\n');
    assert.equal((await sb.exec(['test', '-e', '/tmp/link-target'])).exitCode, 1, 'the link target was not written');
    assert.equal((await sb.exec(['test', '-L', 'link.txt'])).exitCode, 1, 'the link was replaced by a file');
    const large = Buffer.alloc(300 * 1024, 'x');
    await sb.writeFile('large.txt', large);
    assert.deepEqual(await sb.readFile('large.txt'), large);
    await assert.rejects(sb.readFile('no/such/file'), /No such file or directory in sandbox/);
  });

  test('mounts host folders read-only or read-write as the task says', async () => {
    const host = await mkdtemp(join(tmpdir(), 'gp-mount-'));
    try {
      writeFileSync(join(host, 'data.txt'), 'from the host\n');
      const sb = await open('docker', { mounts: [{ host, container: '/data', mode: 'ro' }], allowedMountRoots: [host] });
      assert.equal((await sb.exec('cat /data/data.txt')).stdout, 'from the host\n');
      const write = await sb.exec('echo x > /data/new.txt');
      assert.notEqual(write.exitCode, 0);
      assert.match(write.stderr, /Read-only file system/);
    } finally {
      await rm(host, { recursive: true, force: true });
    }
  });

  test('gives a clear error when the container is killed from outside mid-command', async () => {
    const sb = (await open('docker')) as DockerSandbox;
    const pending = sb.exec('sleep 30');
    await new Promise((done) => setTimeout(done, 300));
    await sb.client.getContainer(sb.id).kill();
    await assert.rejects(pending, (e: unknown) => {
      assert.ok(e instanceof SandboxError);
      assert.equal(e.code, 'container-gone');
      assert.match(e.message, /stopped while running `sleep 30`.*open a new sandbox/);
      return true;
    });
  });

  test('opens a new session when the old one dies, and the sandbox keeps working', async () => {
    const sb = await open('docker');
    // Commands run in a subshell of the session's bash, so `$$` is the session itself; killing it
    // ends the session mid-command.
    await assert.rejects(sb.exec('kill -KILL $$; sleep 5'), (e: unknown) => e instanceof SandboxError && /session .* ended/.test(e.message));
    const r = await sb.exec('echo recovered');
    assert.equal(r.stdout, 'recovered\n');
  });

  test('names the build or prepull command when the image is missing', async () => {
    await assert.rejects(
      DockerSandbox.open(spec('docker', { image: 'graph-planner/does-not-exist:nope' })),
      (e: unknown) => e instanceof SandboxError && e.code === 'image-missing' && /gp images build/.test(e.message) && /gp images prepull/.test(e.message),
    );
  });

  test('says how to recover when the daemon is unreachable', async () => {
    const saved = process.env['DOCKER_HOST'];
    process.env['DOCKER_HOST'] = 'tcp://127.0.0.1:9';
    try {
      await assert.rejects(
        DockerSandbox.open(spec('docker')),
        (e: unknown) =>
          e instanceof SandboxError &&
          e.code === 'daemon-unreachable' &&
          e.message.startsWith('Docker daemon not reachable at tcp://127.0.0.1:9') &&
          /start it, set DOCKER_HOST, or use --backend local/.test(e.message),
      );
      // `auto` falls back to the local working copy when the task has one.
      const sb = await openSandbox(spec('local', { backend: 'auto' }));
      opened.push(sb);
      assert.equal(sb.backend, 'local');
    } finally {
      if (saved === undefined) delete process.env['DOCKER_HOST'];
      else process.env['DOCKER_HOST'] = saved;
    }
  });
});

describe('backend selection', () => {
  test('a task with neither an image nor a local repository gets a clear error', async () => {
    await assert.rejects(
      openSandbox(sandboxSpecSchema.parse({ ...defaultSandboxOptions(), workdir: '/testbed', task: 'nothing' })),
      (e: unknown) => e instanceof SandboxError && e.code === 'no-source' && /neither a docker_image nor a local_repo/.test(e.message),
    );
  });

  test('auto uses the local copy when the daemon lacks the image, and docker when it has it', async () => {
    const local = await open('local', { backend: 'auto', image: 'graph-planner/not-built:here' });
    assert.equal(local.backend, 'local');
    const docker = await open('docker', { backend: 'auto' });
    assert.equal(docker.backend, 'docker');
  });

  test('the local backend never changes the source repository', async () => {
    const sb = (await open('local')) as LocalSandbox;
    await sb.writeFile('app/calc.py', 'broken\n');
    assert.notEqual(readFileSync(join(sampleRepo, 'app', 'calc.py'), 'utf8'), 'broken\n');
    assert.ok(!existsSync(join(sampleRepo, '.git')));
  });
});
