/**
 * The local backend under bubblewrap (server/src/sandbox/bubblewrap.ts), with real bwrap and real
 * processes: a command cannot read the launching process's secrets through /proc, reach a server
 * on the host's loopback, or write outside the sandbox's own folders; a timeout still kills the
 * whole tree. test/integration/setup.sh installs bubblewrap, so these fail, rather than skip, where
 * it is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { execFileSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sandboxSpecSchema, type SandboxSpecInput } from '../../server/src/protocol/index.js';
import { LocalSandbox, localIsolation } from '../../server/src/sandbox/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';

const repoRoot = resolve(__dirname, '..', '..');
const sampleRepo = join(repoRoot, 'docker', 'repoenv_sample', 'sample_repo');
const marker = `gp-secret-${process.pid}-${Date.now().toString(36)}`;
const secrets = { HF_TOKEN: `hf_${marker}`, OPENAI_API_KEY: `sk-${marker}`, AWS_SECRET_ACCESS_KEY: `aws-${marker}` };

// The secrets are ours before any sandbox opens, as `gp`'s would be (the secret test itself runs
// in a peer process started with them, since /proc/<pid>/environ shows the environment a process
// started with, not what it assigns later).
Object.assign(process.env, secrets);

/** Runs `command` in a local sandbox opened by a peer process that has the secrets in its environment. */
function runInPeer(command: string, env: NodeJS.ProcessEnv = {}): { isolation: string; exitCode: number | null; stdout: string; stderr: string } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/integration/localIsolationPeer.ts', command], {
    cwd: repoRoot,
    env: { ...process.env, ...secrets, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 120_000,
  });
  return JSON.parse(out) as { isolation: string; exitCode: number | null; stdout: string; stderr: string };
}

const opened: LocalSandbox[] = [];
async function open(extra: Partial<SandboxSpecInput> = {}): Promise<LocalSandbox> {
  const spec = sandboxSpecSchema.parse({
    ...defaultSandboxOptions(),
    backend: 'local',
    localRepo: sampleRepo,
    workdir: '/testbed',
    run: 'test-local-isolation',
    task: 'local-isolation',
    ...extra,
  });
  const sb = await LocalSandbox.open(spec);
  opened.push(sb);
  return sb;
}

let server: Server;
let port = 0;
let connections = 0;
const folders: string[] = [];

before(async () => {
  server = createServer((socket) => {
    connections++;
    socket.end('hello\n');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});

after(async () => {
  for (const sb of opened) await sb.close();
  server.close();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** A bash line that connects to the test's server and prints what it answers, or `refused`. */
function connect(): string {
  return `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3 || echo refused`;
}

describe('local backend under bubblewrap', () => {
  test('bubblewrap runs here (test/integration/setup.sh installs it)', async () => {
    const isolation = await localIsolation();
    assert.equal(isolation.kind, 'bubblewrap', isolation.kind === 'none' ? isolation.reason : '');
  });

  test("a command finds none of the launching process's secrets in any /proc/*/environ", async () => {
    const r = runInPeer(
      'for f in /proc/*/environ /proc/$PPID/environ /proc/1/environ; do echo "== $f"; tr "\\0" "\\n" < "$f" 2>/dev/null; done; echo "== self $$ parent $PPID"',
    );
    assert.equal(r.isolation, 'bubblewrap');
    assert.equal(r.exitCode, 0, r.stderr);
    for (const value of Object.values(secrets)) assert.ok(!r.stdout.includes(value), `a secret (${value}) reached the command:\n${r.stdout.slice(0, 2000)}`);
    assert.ok(!r.stdout.includes(marker));
    // The command did read environments (its own and the namespace's first process's, bwrap), so
    // finding no secret means there was none to find, not that nothing was read.
    assert.match(r.stdout, /== \/proc\/1\/environ\n[A-Z_]+=/);
    assert.match(r.stdout, /HOME=/);
  });

  test('a command sees only its own processes', async () => {
    const sb = await open();
    const r = await sb.exec('for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done');
    const seen = r.stdout.split('\n').filter((line) => line.trim() !== '');
    // The sandbox's own bwrap, its sleeper, and this command; never this test's node or anything else of the host's.
    assert.ok(seen.length <= 8, `saw ${seen.length} processes:\n${r.stdout}`);
    assert.ok(!seen.some((line) => /node|tsx/.test(line)), r.stdout);
  });

  test("a command cannot reach a server on the host's loopback unless the task allows the network", async () => {
    const closed = await open();
    const before = connections;
    const r = await closed.exec(connect(), { timeoutMs: 10_000 });
    assert.equal(r.stdout.trim(), 'refused', r.stderr);
    assert.equal(connections, before, 'the server saw a connection');
    // The same line reaches it when the task asks for the network, so the test can fail.
    const open_ = await open({ network: true });
    const allowed = await open_.exec(connect(), { timeoutMs: 10_000 });
    assert.equal(allowed.stdout.trim(), 'hello', allowed.stderr);
  });

  test("the repository's setup commands reach the host's loopback (the as-of index)", async () => {
    const sb = await open();
    const r = await sb.execSetup(connect(), { timeoutMs: 10_000 });
    assert.equal(r.stdout.trim(), 'hello', r.stderr);
  });

  test("a command cannot write a host folder outside the working copy, nor the user's home", async () => {
    // /var/tmp is outside the home and the host's /tmp (which are hidden), so it is visible, read-only.
    const outside = await mkdtemp(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'gp-isolation-'));
    const hidden = await mkdtemp(join(tmpdir(), 'gp-isolation-'));
    folders.push(outside, hidden);
    const inHome = join(homedir(), `gp-isolation-${marker}`);
    const sb = await open();
    for (const target of [join(outside, 'f'), join(hidden, 'f'), inHome]) {
      const r = await sb.exec(['sh', '-c', 'echo pwned > "$1"', 'sh', target]);
      assert.equal(existsSync(target), false, `the command wrote ${target} (exit ${r.exitCode}, ${r.stderr.trim()})`);
    }
    const ro = await sb.exec(['sh', '-c', 'echo pwned > "$1"', 'sh', join(outside, 'f')]);
    assert.notEqual(ro.exitCode, 0);
    assert.match(ro.stderr, /Read-only file system/);
  });

  test('a command writes the working copy, scratch and /tmp, and /tmp lasts between commands', async () => {
    const sb = await open();
    const scratch = sb.scratchPath('note');
    const w = await sb.exec(['sh', '-c', 'echo a > written && echo b > "$1" && echo c > /tmp/gp-kept && echo "$TMPDIR"', 'sh', scratch]);
    assert.equal(w.exitCode, 0, w.stderr);
    assert.equal(w.stdout.trim(), '/tmp');
    assert.equal((await sb.readFile('written')).toString(), 'a\n');
    assert.equal((await sb.readFile(scratch)).toString(), 'b\n');
    const kept = await sb.exec('cat /tmp/gp-kept');
    assert.equal(kept.stdout, 'c\n');
    // The working copy keeps its path inside, so nothing above the sandbox changes.
    const pwd = await sb.exec('pwd');
    assert.equal(pwd.stdout.trim(), sb.workdir);
  });

  test('a timeout kills a tree that forks a sleeper, a daemon included, and the memory limit still applies', async () => {
    const sb = await open({ limits: { ...defaultSandboxOptions().limits, memoryBytes: 512 * 1024 * 1024 } });
    const tag = `31.${process.pid % 1000}7`;
    // The second sleeper leaves the command's process group and session, as a daemon does: only
    // the command's own PID namespace ending takes it along.
    const r = await sb.exec(`(sleep ${tag}; echo late > late-marker) & setsid sleep ${tag}1 & sleep 30`, { timeoutMs: 400 });
    assert.equal(r.timedOut, true);
    assert.ok(r.durationMs < 5000, `took ${r.durationMs} ms`);
    await new Promise((done) => setTimeout(done, 300));
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(`sleep ${tag}`));
    assert.deepEqual(left, [], 'the forked sleeper outlived the timeout');
    const limit = await sb.exec('ulimit -v');
    assert.equal(limit.stdout.trim(), String(512 * 1024));
  });
});
