import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { commandScript, shellQuote } from '../../server/src/sandbox/commandScript.js';
import { DockerFrameParser, MarkerScanner } from '../../server/src/sandbox/dockerStream.js';
import { OutputCapture } from '../../server/src/sandbox/outputCapture.js';
import { patchPaths } from '../../server/src/sandbox/patchPaths.js';
import { unquoteGitPath } from '../../server/src/protocol/unifiedDiff.js';
import { rejectedHunks } from '../../server/src/sandbox/repoOps.js';

function bash(script: string): string {
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  return r.stdout;
}

test('shellQuote keeps every word intact through a real bash, quotes and newlines included', () => {
  const words = ['plain', 'with space', "it's", '$HOME', '`id`', 'a\nb', '"dq"', '\\back', '*', ''];
  const out = bash(`printf '%s\\0' ${words.map(shellQuote).join(' ')}`);
  assert.deepEqual(out.split('\0').slice(0, -1), words);
});

test('commandScript runs argv without a shell, sets env and cwd, and names a missing folder', () => {
  const argv = commandScript({ command: ['printf', '%s|%s', '$X', 'a b'], cwd: '/tmp', env: { X: 'x y' } });
  assert.equal(bash(argv), '$X|a b');
  const shell = commandScript({ command: 'echo "$X" $(pwd)', cwd: '/tmp', env: { X: 'x y' } });
  assert.equal(bash(shell), 'x y /tmp\n');
  const missing = spawnSync('bash', ['-c', commandScript({ command: 'echo never', cwd: '/no/such/dir' })], { encoding: 'utf8' });
  assert.equal(missing.status, 125);
  assert.match(missing.stderr, /no such directory: \/no\/such\/dir/);
  assert.throws(() => commandScript({ command: 'true', cwd: '/', env: { 'BAD-NAME': '1' } }), /Invalid environment variable name/);
});

test('OutputCapture keeps the limit, counts everything and says how much it dropped', () => {
  const seen: string[] = [];
  const cap = new OutputCapture(10, (t) => seen.push(t));
  cap.push(Buffer.from('0123456'));
  cap.push(Buffer.from('789abcdef'));
  assert.equal(cap.bytes, 16);
  assert.equal(cap.truncated, true);
  assert.match(cap.text(), /^0123456789\n\[graph-planner: output truncated, 6 more bytes dropped \(limit 10 bytes per stream\)\]/);
  assert.equal(seen.join(''), '0123456789');
});

test('OutputCapture does not split a multi-byte character in live output', () => {
  const seen: string[] = [];
  const cap = new OutputCapture(100, (t) => seen.push(t));
  const bytes = Buffer.from('ä€', 'utf8');
  for (const b of bytes) cap.push(Buffer.from([b]));
  assert.equal(seen.join(''), 'ä€');
  assert.equal(cap.text(), 'ä€');
});

test('MarkerScanner finds a marker split across every possible chunk boundary', () => {
  const marker = '\x1eGPabcE7:';
  const stream = Buffer.from(`hello ${marker}42\x1ftrailing`, 'latin1');
  for (let cut = 1; cut < stream.length; cut++) {
    const data: Buffer[] = [];
    let value: string | undefined;
    const scanner = new MarkerScanner(
      marker,
      0x1f,
      (c) => data.push(Buffer.from(c)),
      (v) => (value = v),
    );
    scanner.push(stream.subarray(0, cut));
    scanner.push(stream.subarray(cut));
    assert.equal(Buffer.concat(data).toString('latin1'), 'hello ', `cut at ${cut}`);
    assert.equal(value, '42', `cut at ${cut}`);
    assert.equal(scanner.finished, true);
  }
});

test('MarkerScanner passes output that only resembles the marker', () => {
  const data: Buffer[] = [];
  const scanner = new MarkerScanner(
    '\x1eGPabcE7:',
    0x1f,
    (c) => data.push(Buffer.from(c)),
    () => assert.fail('no marker'),
  );
  const input = '\x1eGPabcE8:1\x1f and \x1eGP' + 'x'.repeat(20);
  scanner.push(Buffer.from(input, 'latin1'));
  assert.equal(scanner.finished, false);
  // Only a tail shorter than the marker is held back, in case the marker continues.
  assert.equal(Buffer.concat(data).toString('latin1'), input.slice(0, input.length - 8));
});

test('DockerFrameParser splits stdout and stderr frames however the bytes arrive', () => {
  const frame = (type: number, text: string) => {
    const payload = Buffer.from(text);
    const header = Buffer.alloc(8);
    header[0] = type;
    header.writeUInt32BE(payload.length, 4);
    return Buffer.concat([header, payload]);
  };
  const all = Buffer.concat([frame(1, 'out1'), frame(2, 'err'), frame(1, 'out2')]);
  for (let size = 1; size <= all.length; size++) {
    const got: string[] = [];
    const parser = new DockerFrameParser((s, c) => got.push(`${s}:${c.toString()}`));
    for (let i = 0; i < all.length; i += size) parser.push(all.subarray(i, i + size));
    assert.deepEqual(got, ['stdout:out1', 'stderr:err', 'stdout:out2'], `chunk size ${size}`);
  }
});

test('patchPaths lists files and refuses absolute paths, .. and .git', () => {
  const ok = patchPaths('diff --git a/app/x.py b/app/x.py\n--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-a\n+b\n');
  assert.deepEqual(ok, { paths: ['app/x.py'], refused: undefined });
  assert.match(patchPaths('--- a/../outside\n+++ b/../outside\n@@ -1 +1 @@\n-a\n+b\n').refused ?? '', /leaves the repository/);
  assert.match(patchPaths('--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n').refused ?? '', /absolute path/);
  assert.match(patchPaths('--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n').refused ?? '', /inside \.git/);
  assert.match(patchPaths('diff --git a/x b/y\nrename from x\nrename to ../y\n').refused ?? '', /leaves the repository/);
});

test('patchPaths reads content lines that look like headers as content', () => {
  // A removed SQL comment line "-- note" appears as "--- note" inside the hunk.
  const diff = '--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- /etc/passwd\n select 1;\n';
  assert.deepEqual(patchPaths(diff), { paths: ['q.sql'], refused: undefined });
});

test('unquoteGitPath decodes git C-style quoting', () => {
  assert.equal(unquoteGitPath('"a/sp\\303\\244ce\\tx.py"'), 'a/späce\tx.py');
  assert.equal(unquoteGitPath('plain'), 'plain');
});

test('rejectedHunks reads the file and line from git apply --check errors', () => {
  const stderr =
    'Checking patch app/calc.py...\nerror: while searching for:\nerror: patch failed: app/calc.py:6\nerror: app/calc.py: patch does not apply\nerror: new.py: already exists in working directory\n';
  assert.deepEqual(rejectedHunks(stderr), [
    { path: 'app/calc.py', line: 6, message: 'the hunk does not match the file at this line' },
    { path: 'new.py', message: 'already exists in working directory' },
  ]);
});
