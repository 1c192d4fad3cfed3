/**
 * What a hostile task file can ask of the host (issue 21, item 1), with the pure parts and the local
 * backend, which runs here without Docker: which host folders a mount may come from, whatever the
 * spelling (`..`, symbolic links, the three mount forms); the dataset findings that say so before a
 * run; the allow-listed environment of local commands; the local backend's reads and writes kept
 * inside its working copy. The container side (capabilities, no-new-privileges, a refused mount
 * starting nothing) is in test/integration/hostileSandbox.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { refuseMount, realPath, assertMountsAllowed } from '../../server/src/sandbox/mountPolicy.js';
import { localCommandEnvironment } from '../../server/src/sandbox/localEnvironment.js';
import { normaliseMounts, openSandbox, sandboxSpecForTask } from '../../server/src/sandbox/openSandbox.js';
import { SandboxError } from '../../server/src/sandbox/sandbox.js';
import { taskEntrySchema } from '../../server/src/tasks/schema.js';
import { semanticFindings } from '../../server/src/tasks/semanticChecks.js';
import { parseConfigFlags } from '../../server/src/config/overrides.js';
import { git } from '../support/cli.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gp-hostile-mounts-'));
}

const rw = (host: string) => ({ host, container: '/mnt/x', mode: 'rw' as const });

test('the root and the Docker socket are refused whatever is allowed, however they are spelt', () => {
  const allowEverything = ['/'];
  const root = tempDir();
  symlinkSync('/', join(root, 'to-root'));
  symlinkSync('/var/run', join(root, 'to-var-run'));
  const spellings = [
    '/',
    '//',
    '/./',
    '/tmp/..',
    '/etc/../',
    join(root, 'to-root'),
    join(root, 'to-root', 'tmp', '..'),
    '/var/run',
    '/run',
    '/var/run/docker.sock',
    '/run/docker.sock',
    join(root, 'to-var-run'),
    '/var',
  ];
  for (const host of spellings) {
    const refusal = refuseMount(rw(host), allowEverything, {});
    assert.ok(refusal, `${host} must be refused`);
    assert.equal(refusal.never, true, `${host} is never allowed`);
  }
  // A socket named by DOCKER_HOST elsewhere is found too, as is a folder holding it.
  const sockDir = join(root, 'sock');
  mkdirSync(sockDir);
  const env = { DOCKER_HOST: `unix://${join(sockDir, 'docker.sock')}` };
  assert.equal(refuseMount(rw(sockDir), [root], env)?.never, true);
  assert.equal(refuseMount(rw(sockDir), [root], {}), undefined, 'without DOCKER_HOST the same folder is an ordinary one');
});

test('a mount is refused unless it lies under an allowed root, after links and .. are resolved', () => {
  const allowed = tempDir();
  const elsewhere = tempDir();
  mkdirSync(join(allowed, 'data'));
  symlinkSync(elsewhere, join(allowed, 'escape'));
  symlinkSync(join(allowed, 'data'), join(elsewhere, 'into-allowed'));
  // A link that points nowhere yet: Docker would create its target, outside.
  symlinkSync(join(elsewhere, 'not-yet'), join(allowed, 'dangling'));

  // Nothing is allowed by default.
  const none = refuseMount(rw(join(allowed, 'data')), [], {});
  assert.ok(none);
  assert.equal(none.never, false);
  assert.match(none.reason, /no host folder is allowed.*--allow-mount-root/);

  assert.equal(refuseMount(rw(allowed), [allowed], {}), undefined, 'the root itself');
  assert.equal(refuseMount(rw(join(allowed, 'data')), [allowed], {}), undefined, 'a folder under it');
  assert.equal(refuseMount(rw(join(allowed, 'not-yet', 'made')), [allowed], {}), undefined, 'a path Docker would create under it');
  assert.equal(refuseMount(rw(join(elsewhere, 'into-allowed')), [allowed], {}), undefined, 'a link from outside that lands inside');

  for (const host of [
    join(allowed, '..'),
    join(allowed, 'data', '..', '..', 'etc'),
    join(allowed, 'escape'),
    join(allowed, 'escape', 'new'),
    join(allowed, 'dangling'),
    join(allowed, 'dangling', 'below'),
    `${allowed}-sibling`,
    '/etc',
  ]) {
    const refusal = refuseMount(rw(host), [allowed], {});
    assert.ok(refusal, `${host} must be refused`);
    assert.match(refusal.reason, /the allowed roots are/);
  }
  // The message shows where a link really leads.
  assert.match(refuseMount(rw(join(allowed, 'escape')), [allowed], {})?.reason ?? '', new RegExp(`really ${realPath(elsewhere)}`));
});

test('every mount form in a task line is checked, and a refusal throws before anything is opened', async () => {
  const base = tempDir();
  const forms = [['/:/host'], [{ host: '/var/run/docker.sock', container: '/s' }], { '/': '/host' }, ['../..:/up']];
  for (const mounts of forms) {
    const task = taskEntrySchema.parse({ task_id: 't', sandbox: { docker_image: 'img', workdir: '/testbed', mounts } });
    const spec = sandboxSpecForTask(task, {
      commandTimeoutMs: 10_000,
      outputLimitBytes: 1000,
      baseDir: join(base, 'a', 'b'),
      allowedMountRoots: [join(base, 'a')],
    });
    assert.equal(spec.mounts.length, 1);
    assert.throws(
      () => assertMountsAllowed(spec),
      (e: unknown) => e instanceof SandboxError && e.code === 'mount-refused' && /Task t:/.test(e.message),
      JSON.stringify(mounts),
    );
    // openSandbox refuses before choosing a backend: with no Docker here, and none asked for,
    // it would otherwise fail on the daemon, not on the mount.
    await assert.rejects(openSandbox(spec), (e: unknown) => e instanceof SandboxError && e.code === 'mount-refused');
  }
  // A relative mount resolves against the dataset's folder, and is allowed under an allowed root.
  assert.deepEqual(normaliseMounts(['data:/data:ro'], join(base, 'a')), [{ host: join(base, 'a', 'data'), container: '/data', mode: 'ro' }]);
});

test('the dataset check names every host mount: the root and the socket as errors, others as warnings', () => {
  const codes = (mounts: unknown) =>
    semanticFindings({ task_id: 't', sandbox: { docker_image: 'img', mounts } })
      .filter((f) => f.code.includes('mount'))
      .map((f) => `${f.code} ${f.path.join('.')}`);
  assert.deepEqual(codes(['/:/host', '/data:/data']), ['task/mount-never sandbox.mounts.0', 'task/host-mount sandbox.mounts.1']);
  assert.deepEqual(codes([{ host: '/var/run/docker.sock', container: '/s' }]), ['task/mount-never sandbox.mounts.0.host']);
  assert.deepEqual(codes({ '//': '/host', '/srv/cache/': '/c' }), ['task/mount-never sandbox.mounts.//', 'task/host-mount sandbox.mounts./srv/cache/']);
  assert.deepEqual(codes([]), []);
});

test("--allow-mount-root, repeated, becomes one list that replaces the config's", () => {
  const parsed = parseConfigFlags(['rollout', '--allow-mount-root', '/srv/a', '--allow-mount-root=/srv/b', 'x.jsonl']);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.rest, ['rollout', 'x.jsonl']);
  assert.deepEqual(
    parsed.flags.overrides.map((o) => [o.path.join('.'), o.value]),
    [['sandbox.allowed_mount_roots', ['/srv/a', '/srv/b']]],
  );
});

test('local commands get an allow-listed environment with a home of their own', () => {
  const host = {
    PATH: '/usr/bin',
    HOME: '/root',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    HF_TOKEN: 'hf_secret',
    OPENAI_API_KEY: 'sk-secret',
    AWS_SECRET_ACCESS_KEY: 'x',
    GP_SERVICE_TOKEN: 'y',
    SSH_AUTH_SOCK: '/tmp/agent',
  };
  const env = localCommandEnvironment(host, '/tmp/box/home');
  assert.deepEqual(env, { PATH: '/usr/bin', HOME: '/tmp/box/home', LANG: 'C.UTF-8', LC_ALL: 'C' });
});

test('on the local backend a task sees no tokens, and the engine neither reads nor writes through a link out', async () => {
  const repo = tempDir();
  writeFileSync(join(repo, 'app.py'), 'print(1)\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'base');
  const secretDir = tempDir();
  writeFileSync(join(secretDir, 'secret.txt'), 'host secret\n');

  const task = taskEntrySchema.parse({ task_id: 'local-hostile', sandbox: { local_repo: repo, workdir: '/testbed', backend: 'local' } });
  const spec = sandboxSpecForTask(task, { commandTimeoutMs: 30_000, outputLimitBytes: 100_000 });
  const saved = { hf: process.env['HF_TOKEN'], key: process.env['OPENAI_API_KEY'] };
  process.env['HF_TOKEN'] = 'hf_must_not_leak';
  process.env['OPENAI_API_KEY'] = 'sk-must-not-leak';
  const box = await openSandbox(spec);
  try {
    const env = await box.exec('env; echo "HOME_IS=$HOME"');
    assert.equal(env.exitCode, 0);
    assert.doesNotMatch(env.stdout, /must.not.leak/);
    assert.doesNotMatch(env.stdout, /HF_TOKEN|OPENAI_API_KEY/);
    assert.match(env.stdout, /^PATH=/m);
    assert.doesNotMatch(env.stdout, new RegExp(`HOME_IS=${process.env['HOME'] ?? '/root'}$`, 'm'));

    // A patch may create links; the engine's reads, listings and writes do not follow them out.
    const made = await box.exec(
      `ln -s ${secretDir} outside && ln -s ${join(secretDir, 'secret.txt')} leak.txt && ln -s ${join(secretDir, 'planted.txt')} dangling.txt && ln -s app.py inner.py`,
    );
    assert.equal(made.exitCode, 0, made.stderr);
    const refused = (e: unknown) => e instanceof SandboxError && e.code === 'invalid';
    await assert.rejects(box.readFile('leak.txt'), refused);
    await assert.rejects(box.readFile('/testbed/outside/secret.txt'), refused);
    await assert.rejects(box.readFile('../../../../../../etc/hostname'), refused);
    await assert.rejects(box.readFile(join(secretDir, 'secret.txt')), refused);
    await assert.rejects(box.writeFile('outside/planted.txt', 'x'), refused);
    await assert.rejects(box.writeFile('dangling.txt', 'x'), refused);
    await assert.rejects(box.writeFile('inner.py', 'x'), refused);
    await assert.rejects(box.listFiles('outside'), refused);
    await assert.rejects(box.readTree('outside'), refused);
    assert.equal(existsSync(join(secretDir, 'planted.txt')), false);
    assert.equal(readFileSync(join(secretDir, 'secret.txt'), 'utf8'), 'host secret\n');
    // What is inside still works: a link is not listed as a file, and a new file in a new folder is written.
    assert.equal((await box.readFile('app.py')).toString(), 'print(1)\n');
    await box.writeFile('pkg/new.py', 'x = 1\n');
    assert.equal((await box.readFile('/testbed/pkg/new.py')).toString(), 'x = 1\n');
    const listed = await box.listFiles('.');
    assert.ok(listed.includes('app.py') && listed.includes('pkg/new.py'));
    assert.ok(!listed.includes('leak.txt'));
  } finally {
    await box.close();
    if (saved.hf === undefined) delete process.env['HF_TOKEN'];
    else process.env['HF_TOKEN'] = saved.hf;
    if (saved.key === undefined) delete process.env['OPENAI_API_KEY'];
    else process.env['OPENAI_API_KEY'] = saved.key;
  }
});
