/**
 * What a hostile task file can do to the host through a real Docker Engine (issue 21, item 1): a
 * mount outside the allowed roots is refused before any container is created, whichever way it
 * arrives (the engine, `gp rollout`); a container cannot gain privileges and holds no capability
 * but those `sandbox.capabilities` gives back; an allowed mount works. The pure policy and the local
 * backend are in test/unit/hostileMounts.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import Docker from 'dockerode';
import { sandboxSpecSchema } from '../../server/src/protocol/index.js';
import { openSandbox, SandboxError, type Sandbox } from '../../server/src/sandbox/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { runGp } from '../support/cli.js';

const repoRoot = resolve(__dirname, '..', '..');
const sampleRepo = join(repoRoot, 'docker', 'repoenv_sample', 'sample_repo');
const image = 'graph-planner/repoenv-sample:latest';
const run = `test-hostile-sandbox-${process.pid}-${Date.now().toString(36)}`;
const docker = new Docker();

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gp-hostile-sandbox-'));
}

function spec(extra: Record<string, unknown>) {
  return sandboxSpecSchema.parse({
    ...defaultSandboxOptions(),
    backend: 'docker',
    image,
    localRepo: sampleRepo,
    workdir: '/testbed',
    run,
    task: 'hostile',
    ...extra,
  });
}

/** The containers Docker created with this run's label between `since` and now (seconds). */
async function createdSince(since: number, runLabel = run): Promise<number> {
  const until = Math.ceil(Date.now() / 1000) + 1;
  const stream = await docker.getEvents({ since, until, filters: { type: ['container'], event: ['create'], label: [`graph-planner.run=${runLabel}`] } });
  const text = await new Promise<string>((done, fail) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', fail);
  });
  return text.split('\n').filter((l) => l.trim() !== '').length;
}

const opened: Sandbox[] = [];
after(async () => {
  for (const sb of opened) await sb.close();
  const left = await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${run}`] } });
  assert.deepEqual(
    left.map((c) => c.Names),
    [],
    'containers of this test run were left behind',
  );
});

test('a mount of /, of the Docker socket or outside the allowed roots is refused before any container is created', async () => {
  const allowed = tempDir();
  const since = Math.floor(Date.now() / 1000) - 1;
  const hostile = [
    { host: '/', container: '/host', mode: 'rw' },
    { host: '/var/run/docker.sock', container: '/var/run/docker.sock', mode: 'rw' },
    { host: '/etc', container: '/host-etc', mode: 'ro' },
    { host: join(allowed, '..'), container: '/up', mode: 'rw' },
  ];
  for (const mount of hostile) {
    await assert.rejects(openSandbox(spec({ mounts: [mount], allowedMountRoots: [allowed] })), (e: unknown) => {
      assert.ok(e instanceof SandboxError, String(e));
      assert.equal(e.code, 'mount-refused');
      assert.match(e.message, /Task hostile:/);
      return true;
    });
  }
  // Allowing `/` itself does not let the root or the socket through.
  await assert.rejects(openSandbox(spec({ mounts: [hostile[0]], allowedMountRoots: ['/'] })), /never allowed/);
  await assert.rejects(openSandbox(spec({ mounts: [hostile[1]], allowedMountRoots: ['/'] })), /never allowed/);
  assert.equal(await createdSince(since), 0, 'a container was created for a refused mount');
});

test('gp rollout refuses a dataset line that mounts the host, starts no container, and says how to allow a folder', async () => {
  const dir = tempDir();
  const runLabel = `hostile-rollout-${process.pid}-${Date.now().toString(36)}`;
  const dataset = join(dir, 'tasks.jsonl');
  const line = {
    task_id: 'mount-the-host',
    sandbox: { docker_image: image, workdir: '/testbed', mounts: ['/:/host'], test_command: 'python -m pytest -rA tests/test_calc.py' },
    FAIL_TO_PASS: ['tests/test_calc.py::test_addition'],
    PASS_TO_PASS: [],
  };
  writeFileSync(dataset, `${JSON.stringify(line)}\n`);
  const since = Math.floor(Date.now() / 1000) - 1;
  const validate = await runGp(dir, ['dataset', 'validate', dataset]);
  assert.notEqual(validate.code, 0);
  assert.match(validate.out + validate.err, /tasks\.jsonl:1:\d+.*task\/mount-never/s);
  const result = await runGp(dir, ['rollout', dataset, '--backend', 'docker', '--run-name', runLabel, '--output-dir', join(dir, 'runs')]);
  const said = `${result.out}\n${result.err}`;
  // Refused at launch, naming the line, before a run folder or a sandbox exists.
  assert.equal(result.code, 2, said);
  assert.match(said, /tasks\.jsonl:1:1 task mount-the-host: mounting \/ would give the task the whole host; it is never allowed/);
  assert.equal(existsSync(join(dir, 'runs', runLabel)), false, 'a refused launch left a run folder');
  assert.equal(await createdSince(since, runLabel), 0, 'gp rollout created a container for a refused mount');
});

test('a container cannot gain privileges and holds no capability; an allowed mount works and the work tree is writable', async () => {
  const allowed = tempDir();
  mkdirSync(join(allowed, 'data'));
  writeFileSync(join(allowed, 'data', 'input.txt'), 'from the host\n');
  const sb = await openSandbox(spec({ mounts: [{ host: join(allowed, 'data'), container: '/data', mode: 'ro' }], allowedMountRoots: [allowed] }));
  opened.push(sb);
  const status = await sb.exec('grep -E "^(NoNewPrivs|CapEff|CapBnd|CapPrm):" /proc/self/status');
  assert.equal(status.exitCode, 0, status.stderr);
  const fields = Object.fromEntries(
    status.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/:\s+/) as [string, string]),
  );
  assert.equal(fields['NoNewPrivs'], '1');
  // Not one capability, effective or in the bounding set, so none can be regained either.
  assert.equal(BigInt(`0x${fields['CapEff']}`), 0n, `CapEff ${fields['CapEff']}`);
  assert.equal(BigInt(`0x${fields['CapBnd']}`), 0n, `CapBnd ${fields['CapBnd']}`);
  // What the dropped capabilities take away: a device node, a raw socket's privilege, a chown.
  const denied = await sb.exec('mknod /tmp/dev-null-copy c 1 3 2>&1; echo "mknod=$?"; chown 65534 /etc/hostname 2>&1; echo "chown=$?"');
  assert.match(denied.stdout, /mknod=[1-9]/);
  assert.match(denied.stdout, /chown=[1-9]/);
  // The allowed mount is there, read-only as asked; the work tree is writable.
  assert.equal((await sb.exec('cat /data/input.txt')).stdout, 'from the host\n');
  assert.notEqual((await sb.exec('touch /data/new 2>/dev/null')).exitCode, 0);
  const write = await sb.exec('echo changed > app/new_file.py && git status --porcelain');
  assert.equal(write.exitCode, 0, write.stderr);
  assert.match(write.stdout, /new_file\.py/);
  // No network unless the task asks for it.
  const net = await sb.exec('cat /sys/class/net/*/operstate 2>/dev/null | wc -l; ls /sys/class/net');
  assert.deepEqual(net.stdout.trim().split('\n').slice(1), ['lo']);
});

test('sandbox.capabilities gives back exactly the capabilities named, and no more', async () => {
  const sb = await openSandbox(spec({ capabilities: ['CHOWN', 'DAC_OVERRIDE'] }));
  opened.push(sb);
  const status = await sb.exec('grep -E "^(NoNewPrivs|CapEff|CapBnd):" /proc/self/status');
  const fields = Object.fromEntries(
    status.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/:\s+/) as [string, string]),
  );
  // CHOWN is bit 0 and DAC_OVERRIDE bit 1 (linux/capability.h).
  assert.equal(BigInt(`0x${fields['CapEff']}`), 0b11n, `CapEff ${fields['CapEff']}`);
  assert.equal(BigInt(`0x${fields['CapBnd']}`), 0b11n, `CapBnd ${fields['CapBnd']}`);
  assert.equal(fields['NoNewPrivs'], '1');
  const chown = await sb.exec('touch /tmp/owned && chown 65534 /tmp/owned && stat -c %u /tmp/owned');
  assert.equal(chown.stdout.trim(), '65534', chown.stderr);
  // A capability outside Docker's defaults cannot be named at all.
  assert.throws(() => spec({ capabilities: ['SYS_ADMIN'] }), /capabilities/);
});
