/**
 * No future in a working copy (issue 36): a task's repository whose history goes on past the
 * base (the fix, a later tag, another branch, a stash, a reflog) is opened on both backends, and
 * from inside the sandbox nothing later than the base can be found: `git log --all`, `git
 * rev-list --all`, `git cat-file` of the fix's id, tags, remotes and the reflog. On docker the
 * image is the one `gp env build --docker` makes for a task (`buildTaskImage`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Docker from 'dockerode';
import { imageTag } from '../../server/src/protocol/images.js';
import { sandboxSpecSchema } from '../../server/src/protocol/index.js';
import { buildTaskImage, dockerAvailable, openSandbox, type Sandbox } from '../../server/src/sandbox/index.js';
import { defaultSandboxOptions } from '../../server/src/launch/index.js';
import { git } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-no-future-'));
const repo = join(dir, 'repo');
const histories = join(dir, 'histories');
const image = `graph-planner/test-no-future:${process.pid}`;
const run = `test-no-future-${process.pid}`;
const savedHistories = process.env['GP_HISTORIES'];
let base = '';
let fix = '';
let later = '';
const opened: Sandbox[] = [];

before(() => {
  process.env['GP_HISTORIES'] = histories;
  git(dir, 'init', '-q', '-b', 'main', repo);
  const commit = (message: string) => git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-am', message);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  git(repo, 'add', '-A');
  commit('the past');
  git(repo, 'tag', 'v0.9');
  writeFileSync(join(repo, 'README'), 'calc\n');
  git(repo, 'add', '-A');
  commit('the base');
  base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'tag', 'v1.0');
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  commit('the fix');
  fix = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'tag', '-a', '-m', 'fixed', 'v1.1');
  git(repo, 'checkout', '-q', '-b', 'feature', base);
  writeFileSync(join(repo, 'README'), 'calc, later\n');
  commit('a later branch');
  later = git(repo, 'rev-parse', 'HEAD');
  writeFileSync(join(repo, 'README'), 'stashed\n');
  git(repo, 'stash', '-q');
  git(repo, 'checkout', '-q', 'main');
});

after(async () => {
  for (const sb of opened) await sb.close();
  if (savedHistories === undefined) delete process.env['GP_HISTORIES'];
  else process.env['GP_HISTORIES'] = savedHistories;
  try {
    execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
  } catch {
    // No image was built (no Docker), or it is gone.
  }
  rmSync(dir, { recursive: true, force: true });
});

async function open(backend: 'docker' | 'local'): Promise<Sandbox> {
  const spec = sandboxSpecSchema.parse({
    ...defaultSandboxOptions(),
    backend,
    image,
    localRepo: repo,
    workdir: '/testbed',
    run,
    task: `no-future-${backend}`,
    baseCommit: base,
  });
  const sb = await openSandbox(spec);
  opened.push(sb);
  return sb;
}

/** What the sandbox can see of the repository's history, asked from inside it. */
async function history(sb: Sandbox): Promise<{ all: string[]; fix: number; later: number; tags: string[]; remotes: string; reflog: string; stash: number }> {
  const out = async (command: string[]) => (await sb.exec(command)).stdout.trim();
  return {
    all: (await out(['git', 'rev-list', '--all', '--reflog'])).split('\n').filter((l) => l !== ''),
    fix: (await sb.exec(['git', 'cat-file', '-e', `${fix}^{commit}`])).exitCode ?? -1,
    later: (await sb.exec(['git', 'cat-file', '-e', later])).exitCode ?? -1,
    tags: (await out(['git', 'tag'])).split('\n').filter((l) => l !== ''),
    remotes: await out(['git', 'remote']),
    reflog: await out(['git', 'reflog', '--all']),
    stash: (await sb.exec(['git', 'rev-parse', '--verify', '--quiet', 'refs/stash'])).exitCode ?? -1,
  };
}

function assertNoFuture(seen: Awaited<ReturnType<typeof history>>): void {
  const past = git(repo, 'rev-list', base).split('\n');
  assert.deepEqual([...new Set(seen.all)].sort(), [...past].sort(), 'git rev-list --all shows the base and its ancestors only');
  assert.notEqual(seen.fix, 0, 'the fix is not in the object store');
  assert.notEqual(seen.later, 0, 'the later branch is not in the object store');
  assert.deepEqual(seen.tags.sort(), ['v0.9', 'v1.0'], 'tags at the base and before it stay; the later one does not');
  assert.equal(seen.remotes, '');
  assert.equal(seen.reflog, '');
  assert.notEqual(seen.stash, 0, 'no stash');
}

describe('no future in a working copy', () => {
  test('local backend: nothing later than the base can be found from inside the sandbox', async () => {
    const sb = await open('local');
    assert.equal((await sb.exec(['git', 'rev-parse', 'HEAD'])).stdout.trim(), base);
    assertNoFuture(await history(sb));
    // The source repository is untouched.
    assert.equal(git(repo, 'rev-parse', 'main'), fix);
  });

  test('docker backend, in the task image gp env build --docker makes: nothing later than the base either', async () => {
    if (!(await dockerAvailable())) assert.fail('Docker is not reachable: the integration layer needs dockerd (bash test/integration/setup.sh starts it)');
    const built = await buildTaskImage(new Docker(), {
      tag: image,
      envTag: imageTag('base'),
      repo,
      workdir: '/testbed',
      commit: base,
      pythonPath: ['.'],
      force: true,
    });
    assert.match(built.status, /built|up-to-date/);
    const sb = await open('docker');
    assert.equal((await sb.exec(['git', 'rev-parse', 'HEAD'])).stdout.trim(), base);
    assertNoFuture(await history(sb));
  });
});
