// The offline images against the real Docker Engine. `test/integration/setup.sh` has built them
// already, so the builds here are mostly up-to-date checks; the sample contexts are also copied and
// built under test tags to see a real rebuild, what a sample context leaves out, and a real build error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { imageLabels, imageTags, type ImageName } from '../../server/src/protocol/index.js';
import { connectDocker } from '../../server/src/sandbox/dockerClient.js';
import { ImageBuildError, buildContextImage, buildImages, discoverSamples, sampleContextEntries } from '../../server/src/sandbox/images/index.js';
import { parsePytestLog, parseUnittestLog } from '../../server/src/testing/index.js';

const runLabel = 'test-images';
const copyTag = 'graph-planner/test-images-sample-copy:latest';
const sampleCopyTag = 'graph-planner/test-images-samples-copy:latest';
const brokenTag = 'graph-planner/test-images-broken:latest';
const fixtures = join(__dirname, '..', 'fixtures', 'logs');
const dockerDir = join(__dirname, '..', '..', 'docker');

let docker: Docker;
const work = mkdtempSync(join(tmpdir(), 'gp-images-it-'));

before(async () => {
  docker = (await connectDocker()).docker;
});

after(async () => {
  const containers = await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${runLabel}`] } });
  await Promise.all(containers.map((c) => docker.getContainer(c.Id).remove({ force: true })));
  for (const tag of [copyTag, sampleCopyTag, brokenTag])
    await docker
      .getImage(tag)
      .remove()
      .catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
  const left = await docker.listContainers({ all: true, filters: { label: [`graph-planner.run=${runLabel}`] } });
  assert.deepEqual(left, [], 'the test removed every container it created');
});

interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Splits the Engine's multiplexed log stream (8-byte frame headers) into stdout and stderr. */
function demux(buffer: Buffer): { stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  for (let at = 0; at + 8 <= buffer.length;) {
    const size = buffer.readUInt32BE(at + 4);
    (buffer[at] === 2 ? err : out).push(buffer.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** Runs one command in a fresh, labelled, network-less container and removes it. */
async function runIn(image: string, cmd: string[], workingDir?: string): Promise<RunResult> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: cmd,
    ...(workingDir === undefined ? {} : { WorkingDir: workingDir }),
    Labels: { 'graph-planner.run': runLabel },
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const logs = await container.logs({ stdout: true, stderr: true, follow: false });
    return { exitCode: StatusCode, ...demux(logs) };
  } finally {
    await container.remove({ force: true });
  }
}

/** Every image `gp images build` builds with no arguments, in build order. */
async function allImageNames(): Promise<ImageName[]> {
  const { samples } = await discoverSamples(dockerDir);
  return ['base', 'sample', ...samples.map((s) => s.name)];
}

test('builds every image (base, sample, one per sample folder) or finds it up to date, without a failure', async () => {
  const results = await buildImages({ docker });
  const names = await allImageNames();
  assert.ok(names.length >= 9, `${names.length} images`);
  assert.deepEqual(
    results.map((r) => [r.name, r.status === 'failed' ? r.message : 'ok']),
    names.map((name) => [name, 'ok']),
  );
  assert.equal(results.find((r) => r.name === 'sample-off-by-one')?.image, 'graph-planner/sample-off-by-one:latest');
});

test('builds only what the arguments name, in build order, and fails a sample folder that does not exist', async () => {
  const results = await buildImages({ docker, only: ['sample-no-such-folder', 'sample-comparison', 'base'] });
  assert.deepEqual(
    results.map((r) => [r.name, r.status]),
    [
      ['base', 'up-to-date'],
      ['sample-comparison', 'up-to-date'],
      ['sample-no-such-folder', 'failed'],
    ],
  );
  assert.match(results[2]?.message ?? '', /no sample folder docker\/samples\/no-such-folder\//);
  const samples = await buildImages({ docker, only: ['samples'] });
  assert.deepEqual(
    samples.map((r) => r.name),
    (await allImageNames()).filter((name) => name.startsWith('sample-')),
  );
});

test('the base image has python with pytest, git configured for root, and the tools the sandbox runtime uses', async () => {
  const script = [
    'python --version',
    'python3 -m pytest --version',
    'git --version',
    'command -v bash base64 setsid tar',
    'printf aGVsbG8= | base64 -d; echo',
    'git config --system --get safe.directory',
    'git config --system --get user.email',
    'echo "LANG=$LANG"',
  ].join(' && ');
  const result = await runIn(imageTags.base, ['bash', '-c', script]);
  assert.equal(result.exitCode, 0, result.stderr);
  const output = result.stdout + result.stderr;
  assert.match(output, /^Python 3\.\d+/m);
  assert.match(output, /^pytest \d+\./m);
  assert.match(output, /^git version 2\./m);
  for (const tool of ['bash', 'base64', 'setsid', 'tar']) assert.match(output, new RegExp(`^/usr/bin/${tool}$`, 'm'));
  assert.match(output, /^hello$/m);
  assert.match(output, /^\*$/m);
  assert.match(output, /^sandbox@graph-planner\.invalid$/m);
  assert.match(output, /^LANG=C\.UTF-8$/m);
  const info = await docker.getImage(imageTags.base).inspect();
  assert.match(info.Config.Labels?.[imageLabels.recipe] ?? '', /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(info.Config.Cmd, ['bash']);
});

test('a second build finds every image up to date within seconds', async () => {
  const started = Date.now();
  const results = await buildImages({ docker });
  assert.deepEqual(
    results.map((r) => r.status),
    (await allImageNames()).map(() => 'up-to-date'),
  );
  assert.ok(Date.now() - started < 5_000, `the up-to-date check took ${Date.now() - started} ms`);
});

test('the sample image holds /testbed as a clean git repository with one commit and the bug on line 6', async () => {
  const script = 'pwd && git status --porcelain && echo "commits=$(git rev-list --count HEAD)" && git log -1 --format=%s && sed -n 6p app/calc.py';
  const result = await runIn(imageTags.sample, ['bash', '-c', script]);
  assert.equal(result.exitCode, 0, result.stderr);
  assert.equal(result.stdout, '/testbed\ncommits=1\ninitial failing state\n    return lhs - rhs\n');
});

test('pytest -rA in the sample image reports test_addition failed and test_multiplication passed, as in the fixture', async () => {
  const result = await runIn(imageTags.sample, ['python', '-m', 'pytest', '-rA', 'tests/test_calc.py']);
  assert.equal(result.exitCode, 1);
  const live = parsePytestLog(result.stdout + result.stderr);
  assert.equal(live.tests.get('tests/test_calc.py::test_addition'), 'FAILED');
  assert.equal(live.tests.get('tests/test_calc.py::test_multiplication'), 'PASSED');
  // The unit tests read a captured copy of this log; it must still be what the image prints.
  assert.deepEqual(live.tests, parsePytestLog(readFileSync(join(fixtures, 'sample_pytest_rA.txt'), 'utf8')).tests);
});

test('unittest -v in the sample image gives the statuses of the captured fixture', async () => {
  const result = await runIn(imageTags.sample, ['python', '-m', 'unittest', '-v', 'tests.test_calc_unittest']);
  assert.equal(result.exitCode, 1);
  const live = parseUnittestLog(result.stderr);
  assert.equal(live.tests.get('test_add (tests.test_calc_unittest.CalcTest.test_add)'), 'FAILED');
  assert.deepEqual(live.tests, parseUnittestLog(readFileSync(join(fixtures, 'sample_unittest_v.txt'), 'utf8')).tests);
});

test('rebuilds a context image when a file in its context changes, and only then', async () => {
  const dir = join(work, 'sample-copy');
  cpSync(join(__dirname, '..', '..', 'docker', 'repoenv_sample'), dir, { recursive: true });
  const options = { dir, tag: copyTag, name: 'test-images', baseTag: imageTags.base };
  const first = await buildContextImage(docker, options);
  assert.equal((await buildContextImage(docker, options)).status, 'up-to-date');
  writeFileSync(join(dir, 'sample_repo', 'app', 'calc.py'), readFileSync(join(dir, 'sample_repo', 'app', 'calc.py'), 'utf8').replace('lhs - rhs', 'lhs + rhs'));
  const second = await buildContextImage(docker, options);
  assert.equal(second.status, 'built');
  assert.notEqual(second.id, first.id);
  const result = await runIn(copyTag, ['python', '-m', 'pytest', '-q', 'tests/test_calc.py']);
  assert.equal(result.exitCode, 0, result.stdout);
});

test('a sample context sends only the Dockerfile and repo/: gold.diff stays out of the image and a change to it rebuilds nothing', async () => {
  const dir = join(work, 'samples-copy');
  cpSync(join(dockerDir, 'samples', 'off-by-one'), dir, { recursive: true });
  const options = { dir, include: sampleContextEntries, tag: sampleCopyTag, name: 'test-images', baseTag: imageTags.base };
  const first = await buildContextImage(docker, options);
  writeFileSync(join(dir, 'gold.diff'), `${readFileSync(join(dir, 'gold.diff'), 'utf8')}\n`);
  writeFileSync(join(dir, 'notes.txt'), 'not part of the image\n');
  const second = await buildContextImage(docker, options);
  assert.equal(second.status, 'up-to-date');
  assert.equal(second.id, first.id);
  const result = await runIn(
    sampleCopyTag,
    ['bash', '-c', 'find / -xdev \\( -name gold.diff -o -name notes.txt \\) | wc -l; git ls-files | wc -l'],
    '/testbed',
  );
  assert.equal(result.exitCode, 0, result.stderr);
  assert.match(result.stdout, /^0\n[1-9]\d*\n$/);
  writeFileSync(
    join(dir, 'repo', 'pager', 'paginate.py'),
    readFileSync(join(dir, 'repo', 'pager', 'paginate.py'), 'utf8').replace('start + size - 1]', 'start + size]'),
  );
  assert.equal((await buildContextImage(docker, options)).status, 'built');
  const fixed = await runIn(sampleCopyTag, ['python', '-m', 'pytest', '-q', 'tests'], '/testbed');
  assert.equal(fixed.exitCode, 0, fixed.stdout);
});

test('a failing Dockerfile step comes back as a build error naming the step and the command', async () => {
  const dir = join(work, 'broken');
  cpSync(join(__dirname, '..', '..', 'docker', 'repoenv_sample'), dir, { recursive: true });
  writeFileSync(join(dir, 'Dockerfile'), `FROM ${imageTags.base}\nRUN echo about to fail && exit 3\nCMD ["bash"]\n`);
  const lines: string[] = [];
  await assert.rejects(buildContextImage(docker, { dir, tag: brokenTag, name: 'test-images', onProgress: (l) => lines.push(l) }), (error: unknown) => {
    assert.ok(error instanceof ImageBuildError);
    assert.equal(error.code, 'build');
    assert.match(error.message, /^Step 2\/\d+ : RUN echo about to fail && exit 3: .*returned a non-zero code: 3 \(last output: about to fail\)$/);
    return true;
  });
  assert.ok(lines.includes('about to fail'), 'the build output reached onProgress');
  await assert.rejects(docker.getImage(brokenTag).inspect(), 'a failed build leaves no tagged image');
});
