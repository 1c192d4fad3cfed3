import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { imagesManifest, imagesPrepull } from '../../server/src/cli/imageCommands.js';
import type { Io } from '../../server/src/cli/output.js';
import { collectImages, readManifest, writeManifest } from '../../server/src/datasets/manifest.js';
import { isBuildOnlyImageName } from '../../server/src/tasks/index.js';
import { prepullImages, withDefaultTag } from '../../server/src/sandbox/prepull.js';
import { fixturePath, swebenchVerifiedFixture, swebenchVerifiedImagesFixture } from '../support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'gp-manifest-'));

function file(name: string, lines: readonly (string | object)[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return path;
}

function task(id: string, image: string | undefined, extra: Record<string, unknown> = {}): object {
  const sandbox: Record<string, unknown> = { workdir: '/testbed' };
  if (image !== undefined) sandbox['docker_image'] = image;
  return { task_id: id, sandbox, ...extra };
}

function capture(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

test('lists images once each in the order they are first seen, across files', async () => {
  const a = file('order-a.jsonl', [task('1', 'b/img:2'), task('2', 'a/img:1'), task('3', 'b/img:2')]);
  const b = file('order-b.jsonl', [task('4', 'c/img:3'), task('5', 'a/img:1')]);
  const result = await collectImages([a, b]);
  assert.deepEqual(result.images, ['b/img:2', 'a/img:1', 'c/img:3']);
  assert.equal(result.rows, 5);
  assert.deepEqual(result.buildOnly, []);
});

test('takes sandbox.docker_image before a top-level docker_image', async () => {
  const path = file('precedence.jsonl', [
    { task_id: '1', docker_image: 'top/level:1', sandbox: { docker_image: 'in/sandbox:1', workdir: '/w' } },
    { task_id: '2', docker_image: 'top/only:1', sandbox: { workdir: '/w' } },
  ]);
  assert.deepEqual((await collectImages([path])).images, ['in/sandbox:1', 'top/only:1']);
});

test('marks an image build-only by sandbox.requires_build, a top-level requires_build, or a bare sweb.eval name', async () => {
  const path = file('build-only.jsonl', [
    task('1', 'org/sandbox-flag:1', { sandbox: { docker_image: 'org/sandbox-flag:1', workdir: '/w', requires_build: true } }),
    task('2', 'org/top-flag:1', { requires_build: true }),
    task('3', 'sweb.eval.x86_64.astropy__astropy-12907:latest'),
    task('4', 'swebench/sweb.eval.x86_64.django__django-1:latest'),
    task('5', 'org/pullable:1', { requires_build: false }),
    task('6', 'org/top-flag:1'),
  ]);
  const result = await collectImages([path]);
  assert.deepEqual(result.buildOnly, ['org/sandbox-flag:1', 'org/top-flag:1', 'sweb.eval.x86_64.astropy__astropy-12907:latest']);
  assert.equal(result.images.length, 5, 'build-only images stay in the image list; buildOnly is a subset');
  assert.equal(isBuildOnlyImageName('swebench/sweb.eval.x86_64.django__django-1:latest'), false, 'a namespaced copy is published and can be pulled');
});

test('counts rows without an image with their line and task id', async () => {
  const path = file('missing.jsonl', [task('has', 'a/b:1'), '', task('none', undefined), { task_id: 'blank', docker_image: '  ' }]);
  const result = await collectImages([path]);
  assert.equal(result.rows, 3);
  assert.deepEqual(
    result.missing.map((m) => [m.line, m.taskId]),
    [
      [3, 'none'],
      [4, 'blank'],
    ],
  );
});

test('reports malformed lines with line, column and the parse error, and keeps reading', async () => {
  const path = file('malformed.jsonl', [task('1', 'a/b:1'), '{"task_id": "2", "sandbox": {"workdir": "/w",}}', '[1, 2]', task('4', 'c/d:1')]);
  const result = await collectImages([path]);
  assert.deepEqual(result.images, ['a/b:1', 'c/d:1']);
  assert.equal(result.malformed.length, 2);
  const [syntax, notObject] = result.malformed;
  assert.equal(syntax?.line, 2);
  assert.equal(syntax?.column, 46, 'the 1-based column of the stray closing brace');
  assert.match(syntax?.message ?? '', /trailing comma/);
  assert.equal(notObject?.line, 3);
  assert.match(notObject?.message ?? '', /found a list/);
});

test('reads CRLF line breaks and a byte order mark without miscounting lines', async () => {
  const path = join(dir, 'crlf.jsonl');
  writeFileSync(path, `\ufeff${JSON.stringify(task('1', 'a/b:1'))}\r\n\r\n${JSON.stringify(task('2', undefined))}\r\n`);
  const result = await collectImages([path]);
  assert.deepEqual(result.images, ['a/b:1']);
  assert.deepEqual(result.malformed, []);
  assert.equal(result.missing[0]?.line, 3);
});

test('reads .json instance files holding one object or a list, with the top-level requires_build', async () => {
  const single = join(dir, 'astropy__astropy-12907.json');
  writeFileSync(single, JSON.stringify({ instance_id: 'astropy__astropy-12907', docker_image: 'org/instance:1', requires_build: true }, null, 2));
  const list = join(dir, 'instances.json');
  writeFileSync(list, JSON.stringify([{ instance_id: 'x', docker_image: 'org/listed:1' }, { instance_id: 'y' }, 7]));
  const result = await collectImages([single, list]);
  assert.deepEqual(result.images, ['org/instance:1', 'org/listed:1']);
  assert.deepEqual(result.buildOnly, ['org/instance:1']);
  assert.deepEqual(result.missing, [{ file: list, line: 1, item: 1, taskId: 'y' }]);
  assert.equal(result.malformed[0]?.item, 2);
});

test('reports a .json file that is not JSON at the line and column of the error', async () => {
  const path = join(dir, 'broken.json');
  writeFileSync(path, '{\n  "docker_image": "a/b:1",\n}\n');
  const result = await collectImages([path]);
  assert.equal(result.rows, 0);
  assert.equal(result.malformed[0]?.line, 3);
  assert.equal(result.malformed[0]?.column, 1);
});

test('lists a file it cannot read and still reads the others', async () => {
  const good = file('good.jsonl', [task('1', 'a/b:1')]);
  const result = await collectImages([join(dir, 'nope.jsonl'), good]);
  assert.equal(result.unreadable[0]?.file, join(dir, 'nope.jsonl'));
  assert.deepEqual(result.images, ['a/b:1']);
});

test('collects the SWE-bench Verified tasks as the raw JSON says', async () => {
  const path = fixturePath(swebenchVerifiedFixture);
  // The expectation is derived from the raw rows here, not copied from the implementation's output.
  const raw = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as { sandbox?: { docker_image?: string; requires_build?: boolean }; docker_image?: string; requires_build?: boolean });
  const expectedImages = [...new Set(raw.map((r) => r.sandbox?.docker_image ?? r.docker_image).filter((i): i is string => typeof i === 'string'))];
  const expectedBuildOnly = new Set(
    raw
      .filter((r) => r.sandbox?.requires_build === true || r.requires_build === true || (r.sandbox?.docker_image ?? '').startsWith('sweb.eval.'))
      .map((r) => r.sandbox?.docker_image),
  );
  const expectedMissing = raw.filter((r) => (r.sandbox?.docker_image ?? r.docker_image) === undefined).length;
  const result = await collectImages([path]);
  assert.equal(result.rows, raw.length);
  assert.deepEqual(result.images, expectedImages);
  assert.equal(result.buildOnly.length, expectedBuildOnly.size);
  assert.equal(result.missing.length, expectedMissing);
  assert.deepEqual(result.malformed, []);
  // The original system's manifest of the same split names the same images in the same order.
  const original = await readManifest(fixturePath(swebenchVerifiedImagesFixture));
  assert.deepEqual(original.images, result.images);
});

test('writes a manifest that reads back with its build-only marks, ignoring blanks and comments', async () => {
  const path = join(dir, 'nested', 'docker_images.txt');
  await writeManifest(path, ['a/b:1', 'sweb.eval.x86_64.foo__bar-1:latest', 'c/d'], { buildOnly: ['sweb.eval.x86_64.foo__bar-1:latest'] });
  assert.deepEqual(await readManifest(path), {
    images: ['a/b:1', 'sweb.eval.x86_64.foo__bar-1:latest', 'c/d'],
    buildOnly: ['sweb.eval.x86_64.foo__bar-1:latest'],
  });
  const handWritten = join(dir, 'hand.txt');
  writeFileSync(handWritten, '# images\n\n  a/b:1  \r\nc/d # pinned later\na/b:1\n');
  assert.deepEqual(await readManifest(handWritten), { images: ['a/b:1', 'c/d'], buildOnly: [] });
});

test('resolves a name without a tag to :latest, and leaves a registry port alone', () => {
  assert.equal(withDefaultTag('ubuntu'), 'ubuntu:latest');
  assert.equal(withDefaultTag('127.0.0.1:5000/gp-test/tiny'), '127.0.0.1:5000/gp-test/tiny:latest');
  assert.equal(withDefaultTag('127.0.0.1:5000/gp-test/tiny:1'), '127.0.0.1:5000/gp-test/tiny:1');
  assert.equal(withDefaultTag('repo@sha256:abc'), 'repo@sha256:abc');
});

test('gp images manifest writes the manifest, prints the summary, and exits 1 for malformed lines', async () => {
  const data = file('cli.jsonl', [task('1', 'a/b:1'), task('2', 'sweb.eval.x86_64.foo__bar-1:latest'), task('3', undefined), 'not json']);
  const out = join(dir, 'cli-manifest.txt');
  const io = capture();
  assert.equal(await imagesManifest([data, '--out', out], io), 1);
  assert.ok(
    io.lines.some((l) => l.startsWith(`${data}:4:1 malformed:`)),
    io.lines.join('\n'),
  );
  assert.ok(io.lines.some((l) => l.startsWith(`${data}:3 no image: task 3`)));
  assert.equal(io.lines.at(-1), `Docker manifest written to ${out} (2 images, 1 build-only, 1 row without an image, 1 malformed line).`);
  assert.deepEqual((await readManifest(out)).images, ['a/b:1', 'sweb.eval.x86_64.foo__bar-1:latest']);
});

test('gp images manifest exits 2 on a usage error or an unreadable file, and writes nothing', async () => {
  const io = capture();
  assert.equal(await imagesManifest([], io), 2);
  assert.equal(await imagesManifest(['--bogus', 'x.jsonl'], io), 2);
  const out = join(dir, 'never.txt');
  assert.equal(await imagesManifest([join(dir, 'absent.jsonl'), '--out', out], io), 2);
  await assert.rejects(readManifest(out));
});

test('gp images manifest --json prints the collection beside the manifest path', async () => {
  const data = file('json.jsonl', [task('1', 'a/b:1')]);
  const io = capture();
  assert.equal(await imagesManifest([data, '--json'], io), 0);
  const printed = JSON.parse(io.lines.join('\n')) as { manifest: string; images: string[]; rows: number };
  assert.equal(printed.manifest, join(dir, 'docker_images.txt'), 'the default manifest sits beside the first dataset');
  assert.deepEqual(printed.images, ['a/b:1']);
  assert.equal(printed.rows, 1);
});

test('pre-pulls a list of build-only images without a daemon, and names the daemon when one is needed', async () => {
  const saved = process.env['DOCKER_HOST'];
  process.env['DOCKER_HOST'] = `unix://${join(dir, 'no-daemon.sock')}`;
  try {
    const results = await prepullImages(['sweb.eval.x86_64.a__b-1:latest', 'gp-test/built:1', 'sweb.eval.x86_64.a__b-1:latest'], {
      buildOnly: ['gp-test/built:1'],
    });
    assert.deepEqual(
      results.map((r) => [r.image, r.status, r.attempts]),
      [
        ['sweb.eval.x86_64.a__b-1:latest', 'build-only', 0],
        ['gp-test/built:1', 'build-only', 0],
      ],
    );
    await assert.rejects(
      prepullImages(['gp-test/pulled:1']),
      (error: Error & { code?: string }) => error.code === 'daemon-unreachable' && error.message.includes('no-daemon.sock'),
    );
    const io = capture();
    assert.equal(await imagesPrepull(['gp-test/pulled:1'], io), 1);
    assert.match(io.errors.join('\n'), /^Docker daemon not reachable at unix:\/\/.*no-daemon\.sock/);
  } finally {
    if (saved === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = saved;
  }
});
