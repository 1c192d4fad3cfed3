/**
 * The run directory model: atomic status, append-only JSON Lines checked against the protocol's
 * schemas, trajectories that survive a torn last line, file names, test run records, and run discovery.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { runEventSchema, type RunStatus } from '../../server/src/protocol/runs.js';
import { testRunRecordSchema, type TestRunRecord } from '../../server/src/protocol/testReport.js';
import {
  EventLog,
  RecordError,
  TrajectoryWriter,
  episodeFileName,
  legacyEpisodeFileName,
  instanceFolderName,
  listRuns,
  parseTrajectory,
  readStatus,
  readTrajectory,
  recordTestRun,
  runLayout,
  writeInstanceReport,
  writeStatus,
} from '../../server/src/runs/index.js';
import { observation } from './rolloutDoubles.js';

const dir = () => mkdtempSync(join(tmpdir(), 'gp-runs-'));

function status(n: number, extra: Partial<RunStatus> = {}): RunStatus {
  return {
    state: 'running',
    command: 'gp rollout x.jsonl',
    pid: process.pid,
    host: hostname(),
    started_at: '2026-01-01T00:00:00.000Z',
    episodes: { total: 100, finished: n, resolved: 0, errored: 0 },
    ...extra,
  };
}

const start = {
  schema_version: 1 as const,
  episode_id: 'e',
  task_id: 'e',
  agent: 'rule',
  backend: 'local' as const,
  max_steps: 8,
  rewards: { reward_scale: 1, failure_penalty: 0, step_penalty: 0, timeout_penalty: 0 },
  started_at: '2026-01-01T00:00:00.000Z',
  observation: observation('e', 0, false),
};

const step = (n: number) => ({
  step: n,
  action: { type: 'noop' as const },
  observation: observation('e', n, false),
  reward: 0,
  done: false,
  timings: { agent_ms: 1, env_ms: 2, task_commands_ms: 0 },
});

const end = { episode_id: 'e', task_id: 'e', resolved: false, steps: 2, total_reward: 0, termination_reason: 'max_steps' as const, duration_ms: 10, patch: '' };

test('status.json is replaced atomically: a reader polling during 200 writes always sees a whole, valid status', async () => {
  const d = dir();
  const path = runLayout(d).status;
  await writeStatus(path, status(0));
  let reads = 0;
  let writing = true;
  const reader = (async () => {
    while (writing) {
      const r = await readStatus(path);
      assert.ok(r.ok, r.ok ? '' : r.reason);
      reads++;
    }
  })();
  for (let i = 1; i <= 200; i++) await writeStatus(path, status(i));
  writing = false;
  await reader;
  assert.ok(reads > 10, `the reader ran alongside (${reads} reads)`);
  const last = await readStatus(path);
  assert.equal(last.ok && last.status.episodes.finished, 200);
  assert.deepEqual(readdirSync(d), ['status.json'], 'no temporary files are left');
});

test('an invalid status is refused and the file keeps its last valid content', async () => {
  const d = dir();
  const path = runLayout(d).status;
  await writeStatus(path, status(3));
  await assert.rejects(writeStatus(path, { ...status(4), pid: 1.5 }), RecordError);
  const r = await readStatus(path);
  assert.equal(r.ok && r.status.episodes.finished, 3);
});

test('events are appended, never rewritten: 100 concurrent appends give 100 whole lines after the earlier ones', async () => {
  const d = dir();
  const log = new EventLog(runLayout(d).events);
  await log.append({ kind: 'run-start', command: 'gp rollout', total: 100, resumed: 0 });
  const before = readFileSync(log.path, 'utf8');
  await Promise.all(Array.from({ length: 100 }, (_, i) => log.append({ kind: 'episode-start', episode_id: `e${i}`, task_id: `t${i}` })));
  const text = readFileSync(log.path, 'utf8');
  assert.ok(text.startsWith(before), 'the earlier content is untouched');
  const records = text
    .trim()
    .split('\n')
    .map((l) => runEventSchema.parse(JSON.parse(l)));
  assert.equal(records.length, 101);
  assert.deepEqual(new Set(records.slice(1).map((r) => (r.kind === 'episode-start' ? r.episode_id : ''))).size, 100);
});

test('an event that does not match the schema is refused before anything is written', async () => {
  const d = dir();
  const log = new EventLog(runLayout(d).events);
  // A wrong type smuggled past the compiler, as a bug elsewhere would.
  const bad = { kind: 'episode-end', episode_id: 'e', task_id: 't', resolved: 'yes' } as unknown as Parameters<EventLog['append']>[0];
  await assert.rejects(log.append(bad), RecordError);
  assert.equal(existsSync(log.path), false);
});

test('a trajectory is read whole; a torn last line is dropped and reported as torn, not as an error', async () => {
  const d = dir();
  const path = runLayout(d).trajectory('e');
  const w = await TrajectoryWriter.begin(path, start);
  await w.step(step(1));
  await w.step(step(2));
  const whole = await readTrajectory(path);
  assert.equal(whole?.steps.length, 2);
  assert.equal(whole?.end, undefined);
  assert.equal(whole?.torn, false);
  writeFileSync(path, `${readFileSync(path, 'utf8')}{"type":"step","step":3,"obs`);
  const torn = await readTrajectory(path);
  assert.equal(torn?.torn, true);
  assert.deepEqual(torn?.problems, []);
  assert.equal(torn?.steps.length, 2);
  assert.ok(torn?.start);
});

test('a bad line in the middle is a problem with its line number, and the rest is still read', () => {
  const lines = [JSON.stringify({ type: 'start', ...start }), '{"type":"step"}', JSON.stringify({ type: 'end', ...end })];
  const read = parseTrajectory(`${lines.join('\n')}\n`);
  assert.equal(read.problems.length, 1);
  assert.match(read.problems[0] ?? '', /^line 2: /);
  assert.ok(read.end);
  assert.equal(read.torn, false);
});

test('the end line marks a trajectory finished, and a step that breaks the schema is refused', async () => {
  const d = dir();
  const path = runLayout(d).trajectory('e');
  const w = await TrajectoryWriter.begin(path, start);
  await assert.rejects(w.step({ ...step(1), step: 0 }), RecordError);
  await w.end(end);
  const read = await readTrajectory(path);
  assert.equal(read?.steps.length, 0, 'the refused step was not written');
  assert.equal(read?.end?.termination_reason, 'max_steps');
});

test('starting a trajectory replaces a torn one from an earlier attempt in one step', async () => {
  const d = dir();
  const path = runLayout(d).trajectory('e');
  mkdirSync(join(d, 'trajectories'));
  writeFileSync(path, `${JSON.stringify({ type: 'start', ...start, agent: 'old' })}\n{"type":"st`);
  await TrajectoryWriter.begin(path, start);
  const read = await readTrajectory(path);
  assert.equal(read?.start?.agent, 'rule');
  assert.equal(read?.torn, false);
  assert.equal((await readFile(path, 'utf8')).split('\n').length, 2);
});

test('trajectory file names are filename-safe and distinct for ids that differ only in unsafe characters', () => {
  const ids = ['django__django-11099', 'a/b', 'a_b', 'a b', 'task#2', 'task_2', '../up', '.hidden'];
  const names = ids.map(episodeFileName);
  assert.equal(new Set(names).size, ids.length);
  for (const n of names) assert.match(n, /^[A-Za-z0-9_][A-Za-z0-9._-]*(#[1-9]\d*)?\.jsonl$/);
  assert.equal(episodeFileName('django__django-11099'), 'django__django-11099.jsonl', 'a safe id is kept as it is');
  // An attempt's file is named by the episode's one name, so the viewer's tab says what the Runs view says (issue 27).
  assert.equal(episodeFileName('sample-calc-add#10'), 'sample-calc-add#10.jsonl');
  assert.notEqual(episodeFileName('a b#2'), 'a b#2.jsonl', 'only a safe task id keeps its attempt suffix as it is');
  assert.match(episodeFileName('task#0'), /^task_0-[0-9a-f]{8}\.jsonl$/, 'attempts count from 1');
});

test("a run folder an earlier version wrote keeps its attempts' trajectory names, and a new one gets the episode's name", () => {
  const d = dir();
  mkdirSync(join(d, 'trajectories'));
  const legacy = legacyEpisodeFileName('t#2');
  assert.match(legacy, /^t_2-[0-9a-f]{8}\.jsonl$/);
  assert.equal(runLayout(d).trajectory('t#2'), join(d, 'trajectories', 't#2.jsonl'), 'nothing on disk: the new name');
  writeFileSync(join(d, 'trajectories', legacy), '');
  assert.equal(runLayout(d).trajectory('t#2'), join(d, 'trajectories', legacy), "only the old file: it is the episode's");
  assert.equal(runLayout(d).trajectoryRelative('t#2'), join('trajectories', legacy));
  writeFileSync(join(d, 'trajectories', 't#2.jsonl'), '');
  assert.equal(runLayout(d).trajectory('t#2'), join(d, 'trajectories', 't#2.jsonl'), 'both: the new name wins');
});

test('the instance report writer puts each report where the layout says, whatever the id', async () => {
  const d = dir();
  for (const id of ['sympy__sympy-20590', 'org/repo#3', 'x y']) {
    const written = await writeInstanceReport(d, id, { patch_is_None: true, patch_exists: false, patch_successfully_applied: false, resolved: false });
    assert.equal(runLayout(d).instanceReportRelative(id), written);
  }
});

test("an id such as .. or . never names a folder outside reports/ or the run's own report.json (issue 21)", async () => {
  const d = dir();
  writeFileSync(join(d, 'report.json'), '{"run": "kept"}\n');
  const names = ['..', '.', '...', '../report', '.hidden'].map(instanceFolderName);
  assert.equal(new Set(names).size, 5);
  for (const name of names) assert.match(name, /^[A-Za-z0-9_][A-Za-z0-9._-]*$/);
  for (const id of ['..', '.']) {
    const written = await writeInstanceReport(d, id, { patch_is_None: true, patch_exists: false, patch_successfully_applied: false, resolved: false });
    assert.ok(written.startsWith(`reports${sep}`) && !written.includes(`..${sep}`), written);
  }
  assert.equal(readFileSync(join(d, 'report.json'), 'utf8'), '{"run": "kept"}\n');
});

test('listRuns finds runs newest first with their status, marks a dead running one stale, and skips other folders', async () => {
  const out = dir();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  const mk = async (name: string, s?: RunStatus) => {
    mkdirSync(join(out, name));
    if (s) await writeStatus(runLayout(join(out, name)).status, s);
  };
  await mk('old', status(1, { state: 'finished', started_at: '2026-01-01T00:00:00.000Z' }));
  await mk('crashed', status(1, { pid: Number(dead), started_at: '2026-01-02T00:00:00.000Z' }));
  await mk('live', status(1, { started_at: '2026-01-03T00:00:00.000Z' }));
  await mk('resolved-only');
  writeFileSync(runLayout(join(out, 'resolved-only')).resolvedConfig, 'x: 1\n');
  await mk('unrelated');
  const runs = await listRuns(out);
  assert.deepEqual(
    runs.map((r) => r.name),
    ['live', 'crashed', 'old', 'resolved-only'],
  );
  assert.equal(runs.find((r) => r.name === 'crashed')?.stale, true);
  assert.equal(runs.find((r) => r.name === 'live')?.stale, false);
  assert.equal(runs.find((r) => r.name === 'resolved-only')?.problem, 'no status.json');
  assert.deepEqual(await listRuns(join(out, 'missing')), []);
});

test('the layout names every file and folder of a run inside the run directory', () => {
  const layout = runLayout('/runs/r1');
  assert.deepEqual(
    [
      layout.resolvedConfig,
      layout.status,
      layout.events,
      layout.trajectories,
      layout.report,
      layout.reports,
      layout.tests,
      layout.testRuns,
      layout.metrics,
      layout.runLog,
    ],
    [
      'resolved_config.yaml',
      'status.json',
      'events.jsonl',
      'trajectories',
      'report.json',
      'reports',
      'tests',
      'test_runs.jsonl',
      'metrics.jsonl',
      'run.log',
    ].map((n) => join('/runs/r1', n)),
  );
  assert.equal(layout.testLogRelative('sympy__sympy-20590', '2026-11-23T09:41:25.123Z', 'ab12'), join('tests', 'sympy__sympy-20590-20261123-094125-ab12.log'));
  assert.match(layout.testLogRelative('org/repo#3', '2026-11-23T09:41:25.123Z', 'ab12'), /^tests\/org_repo_3-[0-9a-f]{8}-20261123-094125-ab12\.log$/);
});

test('recording a test run writes its log and SWE-bench report and appends one checked line with their paths', async () => {
  const d = dir();
  const report = { patch_is_None: false, patch_exists: true, patch_successfully_applied: true, resolved: true };
  const record: TestRunRecord = {
    kind: 'test_run',
    task: 'org/repo#3',
    backend: 'local',
    command: 'python -m pytest -rA',
    startedAt: '2026-11-23T09:41:25.123Z',
    durationMs: 12,
    exitCode: 0,
    timedOut: false,
    truncated: false,
    parser: 'pytest',
    complete: true,
    counts: { PASSED: 1, FAILED: 0, ERROR: 0, SKIPPED: 0, XFAIL: 0, XPASS: 0 },
    tests: { 't.py::test_a': 'PASSED' },
    grade: { kind: 'swebench', resolution: 'RESOLVED_FULL', report },
  };
  const written = await recordTestRun(d, { record, output: '1 passed\n' });
  const again = await recordTestRun(d, { record, output: 'again\n' });
  assert.equal(record.logPath, undefined, "the caller's record is not changed");
  const lines = readFileSync(runLayout(d).testRuns, 'utf8')
    .trim()
    .split('\n')
    .map((l) => testRunRecordSchema.parse(JSON.parse(l)));
  assert.deepEqual(lines, [written, again]);
  assert.notEqual(written.logPath, again.logPath, 'two runs in the same second keep separate logs');
  assert.equal(readFileSync(join(d, written.logPath ?? ''), 'utf8'), '1 passed\n');
  assert.equal(written.reportPath, runLayout(d).instanceReportRelative('org/repo#3'));
  assert.deepEqual(JSON.parse(readFileSync(join(d, written.reportPath ?? ''), 'utf8')), { 'org/repo#3': report });
});
