/**
 * A Harbor task's verifier run on the local backend (testing/harborVerifier.ts), with real working
 * copies and real bash: the task's tests are placed in the sandbox's scratch folder with Harbor's
 * absolute roots rewritten, test.sh runs from the working directory, and the reward file it leaves
 * grades the run. No reward, an unreadable one, a stale one and a verifier out of time are each
 * not gradable, never a zero. The docker backend runs the same code in
 * test/integration/harborTasks.test.ts.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { openSandbox, sandboxSpecForTask, type Sandbox } from '../../server/src/sandbox/index.js';
import { taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';
import { gradePassed, rewriteRoots, runTaskTests } from '../../server/src/testing/index.js';

const root = mkdtempSync(join(tmpdir(), 'gp-harbor-verifier-'));
after(() => rmSync(root, { recursive: true, force: true }));

const roots = new Map([
  ['/tests', '/tmp/s/tests'],
  ['/logs', '/tmp/s/logs'],
  ['/workspace', '/tmp/w'],
]);

test('rewrites Harbor roots where a path starts, and nothing else', () => {
  const cases: Array<[string, string]> = [
    ['bash /tests/run.sh', 'bash /tmp/s/tests/run.sh'],
    ['echo 1 > "/logs/verifier/reward.txt"', 'echo 1 > "/tmp/s/logs/verifier/reward.txt"'],
    ["open('/workspace/solution.py')", "open('/tmp/w/solution.py')"],
    ['cd /workspace && ls', 'cd /tmp/w && ls'],
    ['cd /workspace', 'cd /tmp/w'],
    ['X=/logs:/tests', 'X=/tmp/s/logs:/tmp/s/tests'],
    ['./tests/a.sh $HOME/logs /opt/tests ~/tests', './tests/a.sh $HOME/logs /opt/tests ~/tests'],
    ['/testsuite /logsfile /workspaces', '/testsuite /logsfile /workspaces'],
    ['https://example.com/tests/x', 'https://example.com/tests/x'],
  ];
  for (const [text, expected] of cases) assert.equal(rewriteRoots(text, roots), expected, text);
  assert.equal(rewriteRoots('cd /app', new Map([['/', '/elsewhere']])), 'cd /app', 'a root of / is never rewritten');
});

let made = 0;

/** A task whose verifier folder holds `files` (test.sh among them), its working copy `workdir`. */
function verifierTask(
  files: Record<string, string>,
  options: { timeoutSec?: number; env?: Record<string, string>; workdirFiles?: Record<string, string> } = {},
): { task: TaskEntry; baseDir: string } {
  const baseDir = join(root, `task-${made++}`);
  mkdirSync(join(baseDir, 'tests'), { recursive: true });
  mkdirSync(join(baseDir, 'workdir'));
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(baseDir, 'tests', name), text);
    if (name.endsWith('.sh')) chmodSync(join(baseDir, 'tests', name), 0o755);
  }
  for (const [name, text] of Object.entries(options.workdirFiles ?? {})) writeFileSync(join(baseDir, 'workdir', name), text);
  const task = taskEntrySchema.parse({
    task_id: `verifier-${made}`,
    sandbox: { workdir: '/workspace', local_repo: 'workdir', backend: 'local' },
    verifier: { tests: 'tests', ...(options.timeoutSec === undefined ? {} : { timeout_sec: options.timeoutSec }), env: options.env ?? {} },
  });
  return { task, baseDir };
}

async function withSandbox<T>(task: TaskEntry, baseDir: string, use: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await openSandbox(sandboxSpecForTask(task, { ...defaultSandboxOptions(), baseDir }));
  try {
    return await use(sandbox);
  } finally {
    await sandbox.close();
  }
}

const passingScript = `#!/bin/bash
mkdir -p /logs/verifier
if [ "$(python3 /workspace/solution.py)" = "4" ] && [ "$(cat /tests/expected.txt)" = "4" ]; then echo 1.0 > /logs/verifier/reward.txt; echo PASS; exit 0; fi
echo 0.0 > /logs/verifier/reward.txt; echo FAIL; exit 1
`;

test('the reward test.sh writes grades the run: a working solution resolves, a wrong one earns its zero', async () => {
  const { task, baseDir } = verifierTask({ 'test.sh': passingScript, 'expected.txt': '4\n' });
  await withSandbox(task, baseDir, async (sandbox) => {
    await sandbox.writeFile('solution.py', 'print(2 + 2)\n');
    const passed = await runTaskTests(sandbox, task, { timeoutMs: 30_000 });
    assert.deepEqual(passed.record.grade, { kind: 'verifier', reward: 1, rewards: { reward: 1 }, from: 'reward.txt', resolved: true, exitCode: 0 });
    assert.equal(passed.record.parser, 'verifier');
    assert.equal(passed.record.command, `bash ${sandbox.scratchPath('harbor/tests')}/test.sh`);
    assert.match(passed.output, /^PASS\n--- \/logs\/verifier\/reward\.txt ---\n1\.0\n$/);
    assert.ok(gradePassed(passed.record.grade));
    await sandbox.writeFile('solution.py', 'print(2 + 3)\n');
    const failed = await runTaskTests(sandbox, task, { timeoutMs: 30_000 });
    assert.deepEqual(failed.record.grade, { kind: 'verifier', reward: 0, rewards: { reward: 0 }, from: 'reward.txt', resolved: false, exitCode: 1 });
    assert.equal(gradePassed(failed.record.grade), false);
    // The rewrite is in the copy the sandbox runs, never in the task's own folder.
    assert.match((await sandbox.readFile(sandbox.scratchPath('harbor/tests/test.sh'))).toString(), new RegExp(`python3 ${sandbox.workdir}/solution\\.py`));
  });
});

test('reward.json wins over reward.txt, a partial reward does not resolve, and the verifier gets its env and runs from the working directory', async () => {
  const script = `#!/bin/bash
mkdir -p /logs/verifier
echo 1 > /logs/verifier/reward.txt
printf '{"reward": 0.5, "style": 1}' > /logs/verifier/reward.json
test "$(pwd)" = "/workspace" && test -f marker && echo "mode=$MODE"
`;
  const { task, baseDir } = verifierTask({ 'test.sh': script }, { env: { MODE: 'strict' }, workdirFiles: { marker: 'x' } });
  await withSandbox(task, baseDir, async (sandbox) => {
    const run = await runTaskTests(sandbox, task, { timeoutMs: 30_000 });
    assert.deepEqual(run.record.grade, {
      kind: 'verifier',
      reward: 0.5,
      rewards: { reward: 0.5, style: 1 },
      from: 'reward.json',
      resolved: false,
      exitCode: 0,
    });
    assert.match(run.output, /^mode=strict$/m);
  });
});

test('no reward, a reward that is not a number, a link for a reward and a verifier out of time are not gradable, never a zero', async () => {
  const cases: Array<{ script: string; reason: RegExp; timeoutMs?: number }> = [
    { script: 'echo ran; exit 0', reason: /wrote neither \/logs\/verifier\/reward\.json nor \/logs\/verifier\/reward\.txt/ },
    { script: 'mkdir -p /logs/verifier; echo nan > /logs/verifier/reward.txt', reason: /reward\.txt does not hold one number/ },
    { script: 'mkdir -p /logs/verifier; echo 1e999 > /logs/verifier/reward.txt', reason: /too large to be finite/ },
    { script: 'mkdir -p /logs/verifier; ln -s /etc/hostname /logs/verifier/reward.txt', reason: /reward\.txt is not a regular file \(a symbolic link\)/ },
    {
      script: 'mkdir -p /logs/verifier; sleep 30; echo 1 > /logs/verifier/reward.txt',
      reason: /did not finish within its time limit \(1 s, verifier\.timeout_sec\)/,
      timeoutMs: 1000,
    },
  ];
  for (const c of cases) {
    const { task, baseDir } = verifierTask({ 'test.sh': `#!/bin/bash\n${c.script}\n` });
    await withSandbox(task, baseDir, async (sandbox) => {
      const run = await runTaskTests(sandbox, task, { timeoutMs: c.timeoutMs ?? 30_000 });
      assert.equal(run.record.grade.kind, 'invalid', c.script);
      assert.match(run.record.grade.kind === 'invalid' ? run.record.grade.reason : '', c.reason);
      assert.equal(gradePassed(run.record.grade), false);
    });
  }
});

test('a reward left by an earlier run is removed before the next, so a verifier that then writes none is not graded by it', async () => {
  const { task, baseDir } = verifierTask({
    'test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\n[ -f /workspace/first ] || echo 1 > /logs/verifier/reward.txt\n',
  });
  await withSandbox(task, baseDir, async (sandbox) => {
    assert.equal((await runTaskTests(sandbox, task, { timeoutMs: 30_000 })).record.grade.kind, 'verifier');
    await sandbox.writeFile('first', '');
    const second = await runTaskTests(sandbox, task, { timeoutMs: 30_000 });
    assert.equal(second.record.grade.kind, 'invalid');
  });
});

test('a verifier folder holding a symbolic link is refused before anything of it reaches the sandbox', async () => {
  const { task, baseDir } = verifierTask({ 'test.sh': '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n' });
  symlinkSync('/etc/passwd', join(baseDir, 'tests', 'data'));
  await withSandbox(task, baseDir, async (sandbox) => {
    const run = await runTaskTests(sandbox, task, { timeoutMs: 30_000 });
    assert.equal(run.record.grade.kind, 'invalid');
    assert.match(run.record.grade.kind === 'invalid' ? run.record.grade.reason : '', /data in the verifier's folder is not a regular file/);
    assert.equal(run.record.exitCode, null);
  });
});
