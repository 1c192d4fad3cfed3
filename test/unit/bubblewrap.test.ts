/**
 * The local backend's bubblewrap arguments and warning (server/src/sandbox/bubblewrap.ts,
 * server/src/protocol/backendChoice.ts), without running bwrap: test/integration/localIsolation.test.ts
 * runs it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bubblewrapArgs, foldersToShow, localIsolation, venvBasePrefix } from '../../server/src/sandbox/bubblewrap.js';
import { localBackendWarning } from '../../server/src/protocol/backendChoice.js';

const layout = { sandboxDir: '/tmp/gp-x', tmp: '/tmp/gp-x/tmp', network: false, readOnly: ['/home/u/.pyenv'], writable: [], userHome: '/home/u' };

test('a command gets its own user, PID and network namespaces, and the network only when the task allows it', () => {
  const closed = bubblewrapArgs(layout);
  for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session'])
    assert.ok(closed.includes(flag), flag);
  assert.ok(!bubblewrapArgs({ ...layout, network: true }).includes('--unshare-net'));
});

test('the home is hidden before folders are bound back into it, and the sandbox is bound last, writable', () => {
  const args = bubblewrapArgs(layout);
  const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
  assert.ok(at('--ro-bind', '/', '/') >= 0);
  assert.ok(at('--tmpfs', '/run') > at('--ro-bind', '/', '/'), '/run and its sockets are hidden');
  assert.ok(at('--bind', '/tmp/gp-x/tmp', '/tmp') < at('--tmpfs', '/home/u'));
  assert.ok(at('--tmpfs', '/home/u') < at('--ro-bind-try', '/home/u/.pyenv', '/home/u/.pyenv'));
  assert.equal(at('--bind', '/tmp/gp-x', '/tmp/gp-x'), args.length - 3);
  assert.ok(!args.includes('--'), 'the caller adds the command after --');
});

test('only folders under the hidden home or /tmp are bound back, never the home itself', () => {
  const home = mkdtempSync(join(tmpdir(), 'gp-bwrap-home-'));
  try {
    mkdirSync(join(home, '.pyenv', 'shims'), { recursive: true });
    mkdirSync(join(home, 'envs'));
    const shown = foldersToShow(
      { PATH: `${join(home, '.pyenv', 'shims')}:/usr/bin:${home}:${join(home, 'gone')}` },
      [join(home, 'envs'), undefined, '/opt'],
      home,
    );
    assert.deepEqual(shown, [join(home, '.pyenv'), join(home, '.pyenv', 'shims'), join(home, 'envs')]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a venv or a Python prefix on PATH under the hidden home is shown with its packages and base interpreter, not only its bin', () => {
  const home = mkdtempSync(join(tmpdir(), 'gp-bwrap-home-'));
  try {
    const venv = join(home, 'venvs', 'py36');
    const base = join(home, '.local', 'share', 'python', 'cpython-3.6');
    const conda = join(home, 'miniconda3', 'envs', 'x');
    for (const folder of [join(venv, 'bin'), join(venv, 'lib'), join(base, 'bin'), join(conda, 'bin'), join(conda, 'lib')])
      mkdirSync(folder, { recursive: true });
    writeFileSync(join(venv, 'pyvenv.cfg'), `home = ${join(base, 'bin')}\n`);
    const shown = foldersToShow({ PATH: `${join(venv, 'bin')}:${join(conda, 'bin')}:/usr/bin`, PYENV_ROOT: join(home, 'no-pyenv') }, [], home);
    assert.deepEqual(shown, [base, join(conda, 'bin'), join(conda, 'lib'), venv, join(venv, 'bin')].sort());
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a venv's base interpreter prefix is read from its pyvenv.cfg", () => {
  const venv = mkdtempSync(join(tmpdir(), 'gp-bwrap-venv-'));
  try {
    writeFileSync(join(venv, 'pyvenv.cfg'), 'home = /home/u/.local/share/uv/python/cpython-3.11/bin\ninclude-system-site-packages = false\n');
    assert.equal(venvBasePrefix(venv), '/home/u/.local/share/uv/python/cpython-3.11');
    assert.equal(venvBasePrefix(join(venv, 'none')), undefined);
  } finally {
    rmSync(venv, { recursive: true, force: true });
  }
});

test('GP_LOCAL_ISOLATION=off turns bubblewrap off and the warning says so and why', async () => {
  const isolation = await localIsolation({ GP_LOCAL_ISOLATION: 'off', PATH: '/usr/bin' });
  assert.equal(isolation.kind, 'none');
  assert.match(localBackendWarning(isolation.kind === 'none' ? isolation.reason : ''), /does not isolate \(GP_LOCAL_ISOLATION=off turns bubblewrap off\)/);
  assert.match(localBackendWarning(undefined), /bubblewrap.*no CPU or process limits/);
});
