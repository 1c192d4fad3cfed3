/**
 * Issue 38: a sandbox backend, a dataset format, an agent and a patch model are each added through
 * their registry alone (`sandbox/backends.ts`, `datasets/converters.ts`, `launch/agentRegistry.ts`),
 * and the code that consults the registry picks the fake up with no other file changed. Each fake is
 * removed again by the call its registration returned, so nothing leaks into other tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../../server/src/agents/index.js';
import type { PatchModel } from '../../server/src/env/index.js';
import { runCli } from '../../server/src/cli/main.js';
import { experimentConfigSchema, type ExperimentConfig } from '../../server/src/config/index.js';
import { convertR2eRow, registerDatasetConverter, type RowConverter } from '../../server/src/datasets/index.js';
import { containerReaper, episodeDepsFromConfig, registerAgent, registerPatchModel, sandboxSlots } from '../../server/src/launch/index.js';
import { instanceFileSchema, prepareReportSchema } from '../../server/src/protocol/datasetPrepare.js';
import { sandboxSpecSchema, type SandboxSpec } from '../../server/src/protocol/sandbox.js';
import { openSandbox, registerSandboxBackend, taskReadiness, type DockerEngineView, type Sandbox, type SandboxSource } from '../../server/src/sandbox/index.js';
import { taskEntrySchema, type TaskEntry } from '../../server/src/tasks/index.js';
import { r2eShapedRows } from '../support/parquetFixtures.js';

/** An engine that must not be asked: the fake backend's tasks name no image. */
const noEngine: DockerEngineView = {
  reach: () => Promise.reject(new Error('the Docker engine was asked about a task with no image')),
};

/**
 * A config whose values the schemas would refuse: a fake is registered at run time, and the
 * schemas' enums are the built-in lists (`protocol/sandboxBackends.ts`, `protocol/agentNames.ts`).
 */
function configWith(change: { readonly backend?: string; readonly agent?: string; readonly patchModel?: string }): ExperimentConfig {
  const config = experimentConfigSchema.parse({});
  return {
    ...config,
    sandbox: { ...config.sandbox, ...(change.backend === undefined ? {} : { backend: change.backend }) },
    rollout: { ...config.rollout, ...(change.agent === undefined ? {} : { agent: change.agent }) },
    backends: { ...config.backends, ...(change.patchModel === undefined ? {} : { cgm_protocol: change.patchModel, cgm_endpoint: 'http://127.0.0.1:9/cgm' }) },
  } as ExperimentConfig;
}

const GiB = 1024 ** 3;

test('a fake sandbox backend registered alone is opened by openSandbox, judged by the launch preflight, sized in slots and reaped with its run', async (t) => {
  const opened: string[] = [];
  const reaped: { run: string; includeLive: boolean }[] = [];
  const shared: (number | null)[] = [];
  const unregister = registerSandboxBackend({
    name: 'fake',
    open: (spec) => {
      opened.push(spec.task);
      // Only the fields this test reads; the rest of a sandbox is never called.
      return Promise.resolve({ backend: 'fake', id: `fake-${spec.task}` } as unknown as Sandbox);
    },
    readiness: (source) => Promise.resolve({ code: 'no-local-repo', reason: `the fake backend cannot run ${source.task}` }),
    // A sandbox of the fake backend takes four cores and twice its memory limit, so its slots differ from the built-in backends'.
    slotShare: (limits) => {
      shared.push(limits.memoryBytes);
      return { cpus: 4, memoryBytes: limits.memoryBytes === null ? undefined : 2 * limits.memoryBytes };
    },
    containers: {
      view: () => assert.fail('the Containers view was not asked for'),
      reap: (run, includeLive) => {
        reaped.push({ run, includeLive });
        return Promise.resolve(2);
      },
    },
  });
  t.after(unregister);

  const parsed = sandboxSpecSchema.parse({ backend: 'docker', workdir: '/testbed', task: 't1', commandTimeoutMs: 60_000, outputLimitBytes: 65_536 });
  const spec = { ...parsed, backend: 'fake' } as unknown as SandboxSpec;
  const sandbox = await openSandbox(spec);
  assert.deepEqual(opened, ['t1']);
  assert.equal(sandbox.id, 'fake-t1');
  assert.deepEqual(sandbox.choice, { requested: 'fake', backend: 'fake' });

  const source = { task: 't2', backend: 'fake' } as unknown as SandboxSource;
  assert.deepEqual(await taskReadiness(source, noEngine), {
    backend: 'fake',
    imagePresent: null,
    problem: { code: 'no-local-repo', reason: 'the fake backend cannot run t2' },
  });

  const reaper = containerReaper(configWith({ backend: 'fake' }), 'run-a');
  assert.ok(reaper !== undefined, 'a backend with containers gets a reaper');
  assert.equal(await reaper(true), 2);
  assert.deepEqual(reaped, [{ run: 'run-a', includeLive: true }]);
  assert.equal(containerReaper(configWith({ backend: 'local' }), 'run-a'), undefined, 'the local backend still has no containers to reap');

  // 16 CPUs and 128 GiB keep 2 CPUs and 16 GiB: 14 cores over 4 each is 3 slots; 112 GiB over 8 GiB (twice the default 4 GiB) is 14.
  const node = { cpus: 16, memoryBytes: 128 * GiB };
  assert.deepEqual(sandboxSlots(node, configWith({ backend: 'fake' }).sandbox), { slots: 3, limitedBy: 'cpus' });
  assert.deepEqual(shared, [4 * GiB], 'the fake was asked with the limits its sandboxes are opened with');
  assert.deepEqual(
    sandboxSlots(node, configWith({ backend: 'auto' }).sandbox),
    { slots: 3, limitedBy: 'cpus' },
    '`auto` may open the fake, so a slot fits its sandbox',
  );
  assert.deepEqual(
    sandboxSlots(node, configWith({ backend: 'docker' }).sandbox),
    { slots: 14, limitedBy: 'cpus' },
    'a named backend is sized by its own share',
  );

  unregister();
  await assert.rejects(openSandbox(spec), /No sandbox backend is registered as fake/);
  assert.deepEqual(sandboxSlots(node, configWith({ backend: 'auto' }).sandbox), { slots: 14, limitedBy: 'cpus' }, 'once gone, the fake no longer sizes `auto`');
});

test('a fake dataset format registered alone is chosen by name by gp dataset prepare, and is gone once unregistered', async (t) => {
  const converted: string[] = [];
  // The fake reads R2E-Gym-shaped rows and names its own kind, so the report and instance files show which converter ran.
  const fake: RowConverter = {
    kind: 'fake-rows',
    source: 'rows',
    title: 'Fake',
    requiredColumns: [],
    defaults: { dataset: 'fake/rows', split: 'test', out: 'datasets/fake', splitRule: { kind: 'none' } },
    convert: (row, convertContext) => {
      converted.push(convertContext.place);
      const made = convertR2eRow(row, convertContext);
      return made.kind === 'task' ? { ...made, instance: { ...made.instance, kind: 'fake-rows' } } : made;
    },
  };
  const unregister = registerDatasetConverter(fake);
  t.after(unregister);

  const dir = mkdtempSync(join(tmpdir(), 'gp-registries-'));
  const rows = join(dir, 'rows.jsonl');
  writeFileSync(
    rows,
    `${r2eShapedRows(3)
      .map((r) => JSON.stringify(r))
      .join('\n')}\n`,
  );
  const out = join(dir, 'out');
  const errs: string[] = [];
  const io = { out: (_l: string) => undefined, err: (l: string) => errs.push(l) };
  assert.equal(await runCli(['dataset', 'prepare', 'fake-rows', '--from', rows, '--out', out], io, dir), 0, errs.join('\n'));
  assert.equal(converted.length, 3);
  const report = prepareReportSchema.parse(JSON.parse(readFileSync(join(out, 'prepare_report.json'), 'utf8')));
  assert.equal(report.kind, 'fake-rows');
  assert.equal(report.converted, 3);
  const first = JSON.parse(readFileSync(join(out, 'test.jsonl'), 'utf8').split('\n')[0] ?? '') as TaskEntry;
  assert.equal(instanceFileSchema.parse(JSON.parse(readFileSync(join(out, 'instances', `${first.task_id}.json`), 'utf8'))).kind, 'fake-rows');

  unregister();
  errs.length = 0;
  assert.equal(await runCli(['dataset', 'prepare', 'fake-rows', '--from', rows, '--out', out], io, dir), 2);
  assert.ok(
    errs.some((l) => l.includes('name the dataset kind: r2e-gym, swebench or harbor, not "fake-rows"')),
    errs.join('\n'),
  );
});

test('a fake agent registered alone is built by the launch factory for a config that names it', (t) => {
  const fakeAgent: Agent = { name: 'fake', act: () => Promise.reject(new Error('the fake agent does not act')) };
  const asked: string[] = [];
  const unregister = registerAgent({
    name: 'fake',
    factory: (config) => {
      asked.push(config.rollout.agent);
      return () => fakeAgent;
    },
  });
  t.after(unregister);

  const deps = episodeDepsFromConfig(configWith({ agent: 'fake' }), 'run-b', mkdtempSync(join(tmpdir(), 'gp-registries-run-')));
  assert.deepEqual(asked, ['fake']);
  assert.equal(deps.makeAgent({ task_id: 't3' } as TaskEntry), fakeAgent);

  unregister();
  assert.throws(() => episodeDepsFromConfig(configWith({ agent: 'fake' }), 'run-b', tmpdir()), /No agent is registered as fake/);
});

test('a fake patch model registered alone is built for a config whose cgm_protocol names it and handed to the environment', (t) => {
  const fakeModel: PatchModel = { name: 'fake-cgm', generate: () => Promise.resolve([]) };
  const endpoints: string[] = [];
  const unregister = registerPatchModel({
    name: 'fake',
    build: (config, endpoint) => {
      endpoints.push(`${config.backends.cgm_protocol} at ${endpoint.baseUrl}`);
      return fakeModel;
    },
  });
  t.after(unregister);

  const task = taskEntrySchema.parse({
    task_id: 't4',
    issue: { id: 'i4', title: 'An issue', body: 'Fix it.' },
    sandbox: { backend: 'local', workdir: '/testbed', local_repo: '.' },
  });
  const deps = episodeDepsFromConfig(configWith({ patchModel: 'fake' }), 'run-c', mkdtempSync(join(tmpdir(), 'gp-registries-run-')));
  assert.deepEqual(endpoints, ['fake at http://127.0.0.1:9/cgm']);
  assert.equal(deps.envOptions(task).patchModel, fakeModel);
  const builtIn = episodeDepsFromConfig(configWith({ patchModel: 'chat' }), 'run-c', tmpdir()).envOptions(task).patchModel;
  assert.ok(builtIn !== undefined && builtIn !== fakeModel, 'a built-in patch model is still built for its own name');

  unregister();
  assert.throws(() => episodeDepsFromConfig(configWith({ patchModel: 'fake' }), 'run-c', tmpdir()), /No patch model is registered as fake/);
});
