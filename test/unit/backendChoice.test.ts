/**
 * Which backend `sandbox.backend: auto` picks, and the reason it gives when it falls back to the
 * unisolated local backend; no daemon is needed, because the tests point DOCKER_HOST at a socket
 * that does not exist.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { backendLine } from '../../server/src/cli/rolloutSummary.js';
import { sandboxSpecSchema, type SandboxSpecInput } from '../../server/src/protocol/sandbox.js';
import { BackendTally } from '../../server/src/rollout/index.js';
import { chooseBackend, SandboxError } from '../../server/src/sandbox/index.js';

const saved = process.env['DOCKER_HOST'];
before(() => {
  process.env['DOCKER_HOST'] = 'unix:///nonexistent/docker.sock';
});
after(() => {
  if (saved === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = saved;
});

const spec = (extra: Partial<SandboxSpecInput>) =>
  sandboxSpecSchema.parse({ backend: 'auto', workdir: '/testbed', task: 't1', commandTimeoutMs: 60_000, outputLimitBytes: 65_536, ...extra });

test('auto falls back to local when no daemon answers, saying where it looked and why', async () => {
  const choice = await chooseBackend(spec({ image: 'sample:latest', localRepo: '/tmp' }));
  assert.equal(choice.requested, 'auto');
  assert.equal(choice.backend, 'local');
  assert.equal(choice.fallback?.code, 'daemon-unreachable');
  assert.match(choice.fallback?.reason ?? '', /^no Docker daemon at unix:\/\/\/nonexistent\/docker\.sock \(.+\)$/);
});

test('auto runs a task without an image locally and says that the task names none', async () => {
  const choice = await chooseBackend(spec({ localRepo: '/tmp' }));
  assert.deepEqual(choice, { requested: 'auto', backend: 'local', fallback: { code: 'no-image', reason: 'task t1 names no docker_image' } });
});

test('auto without a local copy does not fall back: docker is chosen and its own error will say what is missing', async () => {
  assert.deepEqual(await chooseBackend(spec({ image: 'sample:latest' })), { requested: 'auto', backend: 'docker' });
});

test('a backend asked for by name is used as it is, with no fall-back', async () => {
  assert.deepEqual(await chooseBackend(spec({ backend: 'local', image: 'sample:latest', localRepo: '/tmp' })), { requested: 'local', backend: 'local' });
  assert.deepEqual(await chooseBackend(spec({ backend: 'docker', localRepo: '/tmp' })), { requested: 'docker', backend: 'docker' });
});

test('a task with neither an image nor a local copy is refused with no-source', async () => {
  await assert.rejects(chooseBackend(spec({})), (e: unknown) => e instanceof SandboxError && e.code === 'no-source');
});

test('the backend line counts episodes per backend and gives each fall-back reason once', () => {
  const tally = new BackendTally();
  const missing = { code: 'image-missing' as const, reason: 'the Docker daemon at unix:///var/run/docker.sock has no image a:1' };
  assert.deepEqual(tally.add('local', missing), missing, 'a new reason is returned to be announced');
  assert.equal(tally.add('local', missing), undefined, 'a reason seen before is not announced again');
  tally.add('docker', undefined);
  assert.equal(
    backendLine(tally.summary()),
    "backend: docker for 1 episode, local for 2 episodes (auto fell back: the Docker daemon at unix:///var/run/docker.sock has no image a:1; commands run on this host without a container's CPU and process limits, and without network or file isolation where bubblewrap cannot run)",
  );
  assert.equal(backendLine({ episodes: { docker: 4, local: 0 }, fallbacks: [] }), 'backend: docker');
});

test('an image name is looked up as the engine lists its tags: latest when untagged, without the docker.io prefixes', async () => {
  const { imageReference } = await import('../../server/src/sandbox/openSandbox.js');
  assert.equal(imageReference('ubuntu'), 'ubuntu:latest');
  assert.equal(imageReference('docker.io/library/ubuntu:22.04'), 'ubuntu:22.04');
  assert.equal(imageReference('docker.io/graph-planner/base'), 'graph-planner/base:latest');
  // A registry's port is not a tag.
  assert.equal(imageReference('localhost:5000/x/y'), 'localhost:5000/x/y:latest');
  assert.equal(imageReference('sweb.eval.x86_64.django__django-11099:latest'), 'sweb.eval.x86_64.django__django-11099:latest');
});
