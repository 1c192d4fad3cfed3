import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { extract } from 'tar-stream';
import { imageTags } from '../../server/src/protocol/index.js';
import {
  ImageBuildError,
  baseRecipeHash,
  hashInputs,
  importChanges,
  loadBaseRecipe,
  packContext,
  parseDeb822Sources,
  parseOneLineSources,
  pickMirror,
  readAptMirror,
  readContextFiles,
} from '../../server/src/sandbox/images/index.js';
import { imagesBuild } from '../../server/src/cli/imageBuildCommand.js';

const root = join(__dirname, '..', '..');
const baseDir = join(root, 'docker', 'base');
const sampleDir = join(root, 'docker', 'repoenv_sample');

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gp-images-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Debian bookworm's default deb822 file, as its installer and the official image write it.
const bookwormSources = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
# http://snapshot.debian.org/archive/debian-security/20250520T000000Z
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

test('parses deb822 stanzas, skipping comments and joining continuation lines', () => {
  const text = `${bookwormSources}
Types: deb deb-src
URIs: https://mirror.example/debian
  https://other.example/debian
Suites: trixie
Components: main contrib
Enabled: no
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 xsFNBF...
`;
  const sources = parseDeb822Sources(text);
  assert.equal(sources.length, 3);
  assert.deepEqual(sources[0], {
    types: ['deb'],
    uris: ['http://deb.debian.org/debian'],
    suites: ['bookworm', 'bookworm-updates'],
    components: ['main'],
    enabled: true,
    signedBy: '/usr/share/keyrings/debian-archive-keyring.gpg',
  });
  assert.deepEqual(sources[2]?.uris, ['https://mirror.example/debian', 'https://other.example/debian']);
  assert.deepEqual(sources[2]?.types, ['deb', 'deb-src']);
  assert.equal(sources[2]?.enabled, false);
  assert.match(sources[2]?.signedBy ?? '', /BEGIN PGP PUBLIC KEY BLOCK/);
});

test('parses one-line sources with bracketed options and trailing comments', () => {
  const text = [
    '# deb http://old.example/debian buster main',
    'deb-src http://deb.debian.org/debian bookworm main',
    'deb [arch=amd64 signed-by=/etc/apt/keyrings/mirror.gpg] http://mirror.example/debian bookworm main contrib # nearest',
    'deb http://security.debian.org/debian-security bookworm-security main',
  ].join('\n');
  const sources = parseOneLineSources(text);
  assert.equal(sources.length, 3);
  assert.deepEqual(sources[1], {
    types: ['deb'],
    uris: ['http://mirror.example/debian'],
    suites: ['bookworm'],
    components: ['main', 'contrib'],
    enabled: true,
    signedBy: '/etc/apt/keyrings/mirror.gpg',
  });
  assert.deepEqual(pickMirror(sources, 'bookworm'), { uri: 'http://mirror.example/debian', signedBy: '/etc/apt/keyrings/mirror.gpg' });
});

test('picks the source serving the suite, falls back to a main-archive source, and never to security or source-only entries', () => {
  const sources = parseDeb822Sources(bookwormSources);
  assert.equal(pickMirror(sources, 'bookworm')?.uri, 'http://deb.debian.org/debian');
  // A trixie machine's main archive still serves bookworm; its security archive does not.
  const trixie = parseOneLineSources('deb http://security.debian.org/debian-security trixie-security main\ndeb http://ftp.example/debian trixie main');
  assert.equal(pickMirror(trixie, 'bookworm')?.uri, 'http://ftp.example/debian');
  const unusable = parseOneLineSources(
    'deb-src http://deb.debian.org/debian bookworm main\ndeb http://security.debian.org/debian-security bookworm-security main\ndeb cdrom:[Debian]/ bookworm main',
  );
  assert.equal(pickMirror(unusable, 'bookworm'), undefined);
  assert.equal(pickMirror(parseDeb822Sources(bookwormSources.replace('Components: main\n', 'Components: main\nEnabled: no\n')), 'bookworm'), undefined);
});

test('reads the mirror from debian.sources first and falls back to sources.list', async (t) => {
  const dir = tempDir(t);
  const deb822 = join(dir, 'debian.sources');
  const list = join(dir, 'sources.list');
  writeFileSync(list, 'deb http://list.example/debian bookworm main\n');
  assert.deepEqual(await readAptMirror('bookworm', [deb822, list]), { uri: 'http://list.example/debian', from: list });
  writeFileSync(deb822, bookwormSources.replaceAll('/usr/share/keyrings/debian-archive-keyring.gpg', join(dir, 'missing.gpg')));
  // The keyring is passed on only when it exists on this machine.
  assert.deepEqual(await readAptMirror('bookworm', [deb822, list]), { uri: 'http://deb.debian.org/debian', from: deb822 });
  writeFileSync(join(dir, 'missing.gpg'), '');
  assert.equal((await readAptMirror('bookworm', [deb822, list])).keyring, join(dir, 'missing.gpg'));
});

test('fails with a no-mirror error naming the files it read when none names a Debian mirror', async (t) => {
  const dir = tempDir(t);
  const list = join(dir, 'sources.list');
  writeFileSync(list, '# nothing here\n');
  await assert.rejects(readAptMirror('bookworm', [join(dir, 'debian.sources'), list]), (error: unknown) => {
    assert.ok(error instanceof ImageBuildError);
    assert.equal(error.code, 'no-mirror');
    assert.match(error.message, /debian\.sources or .*sources\.list.*--mirror/);
    return true;
  });
});

test('the recipe hash is stable and changes when a recipe file, the mirror or the suite changes', async (t) => {
  const dir = tempDir(t);
  cpSync(baseDir, dir, { recursive: true });
  const loaded = await loadBaseRecipe(dir);
  const hash = baseRecipeHash(loaded, 'http://deb.debian.org/debian');
  assert.match(hash, /^sha256:[0-9a-f]{64}$/);
  assert.equal(baseRecipeHash(await loadBaseRecipe(baseDir), 'http://deb.debian.org/debian'), hash);
  assert.notEqual(baseRecipeHash(loaded, 'http://mirror.example/debian'), hash);

  writeFileSync(join(dir, 'configure.sh'), `${readFileSync(join(dir, 'configure.sh'), 'utf8')}\necho changed\n`);
  assert.notEqual(baseRecipeHash(await loadBaseRecipe(dir), 'http://deb.debian.org/debian'), hash);

  cpSync(baseDir, dir, { recursive: true });
  const recipe = JSON.parse(readFileSync(join(dir, 'recipe.json'), 'utf8')) as { suite: string };
  writeFileSync(join(dir, 'recipe.json'), JSON.stringify({ ...recipe, suite: 'trixie' }));
  assert.notEqual(baseRecipeHash(await loadBaseRecipe(dir), 'http://deb.debian.org/debian'), hash);

  // Files outside the recipe (the README) do not count.
  cpSync(baseDir, dir, { recursive: true });
  writeFileSync(join(dir, 'README.md'), 'notes\n');
  assert.equal(baseRecipeHash(await loadBaseRecipe(dir), 'http://deb.debian.org/debian'), hash);
});

test('hashes file names, modes and contents so that no two file sets collide', () => {
  const a = hashInputs([{ name: 'a', content: 'bc' }]);
  assert.notEqual(hashInputs([{ name: 'ab', content: 'c' }]), a);
  assert.notEqual(hashInputs([{ name: 'a', content: 'bc', mode: 0o755 }]), a);
  assert.equal(
    hashInputs([
      { name: 'b', content: '' },
      { name: 'a', content: 'bc' },
    ]),
    hashInputs([
      { name: 'a', content: 'bc' },
      { name: 'b', content: '' },
    ]),
  );
  assert.notEqual(hashInputs([{ name: 'a', content: 'bc' }], { mirror: 'x' }), a);
});

test('the base recipe installs what the sandbox runtime runs and imports with labels, LANG and CMD bash', async () => {
  const { recipe } = await loadBaseRecipe(baseDir);
  assert.equal(recipe.suite, 'bookworm');
  assert.equal(recipe.variant, 'minbase');
  for (const pkg of ['python3', 'python-is-python3', 'python3-pytest', 'git', 'ca-certificates', 'bash', 'coreutils', 'util-linux', 'tar']) {
    assert.ok(recipe.packages.includes(pkg), `${pkg} is in recipe.json`);
  }
  assert.deepEqual(importChanges(recipe, { 'graph-planner.recipe': 'sha256:abc', 'graph-planner.mirror': 'http://x/debian' }), [
    'LABEL graph-planner.recipe="sha256:abc" graph-planner.mirror="http://x/debian"',
    'ENV LANG="C.UTF-8"',
    'CMD ["bash"]',
  ]);
});

test('rejects a recipe.json that does not match the recipe schema, naming the key', async (t) => {
  const dir = tempDir(t);
  cpSync(baseDir, dir, { recursive: true });
  writeFileSync(join(dir, 'recipe.json'), JSON.stringify({ suite: 'bookworm', variant: 'minbase', packages: [], cmd: ['bash'] }));
  await assert.rejects(loadBaseRecipe(dir), (error: unknown) => error instanceof ImageBuildError && error.code === 'recipe' && /packages/.test(error.message));
});

async function tarEntries(tar: Buffer): Promise<Map<string, { mode: number; mtime: number; content: string }>> {
  const entries = new Map<string, { mode: number; mtime: number; content: string }>();
  const reader = extract();
  const done = new Promise<void>((resolve, reject) => {
    reader.on('entry', (header, stream, next) => {
      const chunks: Uint8Array[] = [];
      stream.on('data', (chunk: unknown) => {
        if (chunk instanceof Uint8Array) chunks.push(chunk);
      });
      stream.on('end', () => {
        entries.set(header.name, { mode: header.mode ?? 0, mtime: header.mtime?.getTime() ?? -1, content: Buffer.concat(chunks).toString('utf8') });
        next();
      });
    });
    reader.on('finish', resolve);
    reader.on('error', reject);
  });
  Readable.from([tar]).pipe(reader);
  await done;
  return entries;
}

test('packs the sample context with the Dockerfile and the repository, leaving Python caches out', async (t) => {
  const dir = tempDir(t);
  cpSync(sampleDir, dir, { recursive: true });
  mkdirSync(join(dir, 'sample_repo', 'app', '__pycache__'), { recursive: true });
  writeFileSync(join(dir, 'sample_repo', 'app', '__pycache__', 'calc.cpython-311.pyc'), 'x');
  mkdirSync(join(dir, 'sample_repo', '.pytest_cache'));
  writeFileSync(join(dir, 'sample_repo', '.pytest_cache', 'README.md'), 'x');
  writeFileSync(join(dir, 'sample_repo', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });

  const files = await readContextFiles(dir);
  const tar = await packContext(files);
  const entries = await tarEntries(tar);
  assert.deepEqual(
    [...entries.keys()],
    [
      'Dockerfile',
      'sample_repo/.gitignore',
      'sample_repo/app/__init__.py',
      'sample_repo/app/calc.py',
      'sample_repo/run.sh',
      'sample_repo/tests/__init__.py',
      'sample_repo/tests/test_calc.py',
      'sample_repo/tests/test_calc_unittest.py',
    ],
  );
  assert.equal(entries.get('sample_repo/run.sh')?.mode, 0o755);
  assert.equal(entries.get('sample_repo/app/calc.py')?.mode, 0o644);
  assert.equal(entries.get('Dockerfile')?.mtime, 0);
  assert.equal(entries.get('sample_repo/app/calc.py')?.content, readFileSync(join(sampleDir, 'sample_repo', 'app', 'calc.py'), 'utf8'));
  // The same files give the same bytes, so the context hash and Docker's cache agree across checkouts.
  assert.deepEqual(await packContext(await readContextFiles(dir)), tar);
  // The caches left out of the tar are left out of the hash too.
  assert.equal(hashInputs(files), hashInputs((await readContextFiles(dir)).filter((f) => !f.name.includes('cache'))));
});

test('the sample bug sits on the line the sample dataset points its failure frame at', () => {
  const task = JSON.parse(readFileSync(join(root, 'datasets', 'sample', 'tasks.jsonl'), 'utf8').split('\n')[0] ?? '') as {
    sandbox: { docker_image: string };
    issue: { failure_frame: { path: string; lineno: number; function: string } };
  };
  const frame = task.issue.failure_frame;
  assert.deepEqual(frame, { path: 'app/calc.py', lineno: 6, function: 'add' });
  assert.equal(task.sandbox.docker_image, imageTags.sample);
  const lines = readFileSync(join(sampleDir, 'sample_repo', frame.path), 'utf8').split('\n');
  assert.equal(lines[frame.lineno - 1], '    return lhs - rhs');
  const enclosing = lines
    .slice(0, frame.lineno)
    .reverse()
    .find((line) => line.startsWith('def '));
  assert.equal(enclosing, `def ${frame.function}(lhs, rhs):`);
  assert.equal(lines[10], '    return lhs * rhs', 'mul returns on line 11, where the mul task points');
});

test('the sample Dockerfile starts from the base image tag the engine builds', () => {
  const dockerfile = readFileSync(join(sampleDir, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, new RegExp(`^FROM ${imageTags.base.replace(/[/.]/g, '\\$&')}$`, 'm'));
});

test('gp images build answers usage errors with exit code 2 before touching Docker', async () => {
  const lines: string[] = [];
  const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
  assert.equal(await imagesBuild(['bogus'], io), 2);
  assert.match(lines[0] ?? '', /unknown image 'bogus'; choose from base, sample/);
  assert.equal(await imagesBuild(['--nope'], io), 2);
  assert.equal(await imagesBuild(['--mirror', 'deb.debian.org'], io), 2);
  assert.match(lines.join('\n'), /--mirror needs a URL/);
});

test('gp images build --tasks without a file is a usage error naming the flag', async () => {
  const err: string[] = [];
  const code = await imagesBuild(['--tasks'], { out: () => undefined, err: (l) => err.push(l) });
  assert.equal(code, 2);
  assert.match(err.join('\n'), /--tasks needs a dataset file/);
});
