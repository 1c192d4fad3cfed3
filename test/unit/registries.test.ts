/**
 * Issue 38: a sandbox backend, a dataset format and an agent are each added through their
 * registry alone (`sandbox/backends.ts`, `datasets/converters.ts`, `launch/agentRegistry.ts`), and
 * the code that consults the registry picks the fake up with no other file changed. Each fake is
 * removed again by the call its registration returned, so nothing leaks into other tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../../server/src/agents/index.js';
import { runCli } from '../../server/src/cli/main.js';
import { experimentConfigSchema, type ExperimentConfig } from '../../server/src/config/index.js';
import { convertR2eRow, registerDatasetConverter, type RowConverter } from '../../server/src/datasets/index.js';
import { containerReaper, episodeDepsFromConfig, registerAgent } from '../../server/src/launch/index.js';
import { instanceFileSchema, prepareReportSchema } from '../../server/src/protocol/datasetPrepare.js';
import { sandboxSpecSchema, type SandboxSpec } from '../../server/src/protocol/sandbox.js';
import { openSandbox, registerSandboxBackend, taskReadiness, type DockerEngineView, type Sandbox, type SandboxSource } from '../../server/src/sandbox/index.js';
import type { TaskEntry } from '../../server/src/tasks/index.js';
import { r2eShapedRows } from '../support/parquetFixtures.js';

/** An engine that must not be asked: the fake backend's tasks name no image. */
const noEngine: DockerEngineView = {
  reach: () => Promise.reject(new Error('the Docker engine was asked about a task with no image')),
};

/**
 * A config whose values the schemas would refuse: a fake is registered at run time, and the
 * schemas' enums are the built-in lists (`protocol/sandboxBackends.ts`, `protocol/agentNames.ts`).
 */
function configWith(change: { readonly backend?: string; readonly agent?: string }): ExperimentConfig {
  const config = experimentConfigSchema.parse({});
  return {
    ...config,
    sandbox: { ...config.sandbox, ...(change.backend === undefined ? {} : { backend: change.backend }) },
    rollout: { ...config.rollout, ...(change.agent === undefined ? {} : { agent: change.agent }) },
  } as ExperimentConfig;
}

test('a fake sandbox backend registered alone is opened by openSandbox, judged by the launch preflight and reaped with its run', async (t) => {
  const opened: string[] = [];
  const reaped: { run: string; includeLive: boolean }[] = [];
  const unregister = registerSandboxBackend({
    name: 'fake',
    open: (spec) => {
      opened.push(spec.task);
      // Only the fields this test reads; the rest of a sandbox is never called.
      return Promise.resolve({ backend: 'fake', id: `fake-${spec.task}` } as unknown as Sandbox);
    },
    readiness: (source) => Promise.resolve({ code: 'no-local-repo', reason: `the fake backend cannot run ${source.task}` }),
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
  assert.deepEqual(await taskReadiness(source, noEngine), { backend: 'fake', imagePresent: null, problem: { code: 'no-local-repo', reason: 'the fake backend cannot run t2' } });

  const reaper = containerReaper(configWith({ backend: 'fake' }), 'run-a');
  assert.ok(reaper !== undefined, 'a backend with containers gets a reaper');
  assert.equal(await reaper(true), 2);
  assert.deepEqual(reaped, [{ run: 'run-a', includeLive: true }]);
  assert.equal(containerReaper(configWith({ backend: 'local' }), 'run-a'), undefined, 'the local backend still has no containers to reap');

  unregister();
  await assert.rejects(openSandbox(spec), /No sandbox backend is registered as fake/);
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
  writeFileSync(rows, `${r2eShapedRows(3).map((r) => JSON.stringify(r)).join('\n')}\n`);
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
  assert.ok(errs.some((l) => l.includes('name the dataset kind: r2e-gym, swebench or harbor, not "fake-rows"')), errs.join('\n'));
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
