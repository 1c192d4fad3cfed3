/**
 * Each task's certification for the Tasks view, read from the verifications under the run roots
 * (`verdicts.jsonl`, followed incrementally) and from a certified row's own `certification`.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TaskVerdict, VerdictStatus } from '../../server/src/protocol/verify.js';
import { TaskCertifications, certificationOfVerdict, taskCertification } from '../../server/src/runs/index.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'gp-certifications-'));

function verdict(task: string, status: VerdictStatus, startedAt: string, extra: Partial<TaskVerdict> = {}): string {
  const v: TaskVerdict = {
    kind: 'verdict',
    task_id: task,
    line: 1,
    status,
    flaky: [],
    failing: [],
    passing_without_fix: [],
    repeats: 1,
    runs: [],
    started_at: startedAt,
    duration_ms: 1000,
    ...extra,
  };
  return `${JSON.stringify(v)}\n`;
}

/** A verification run folder as `gp dataset verify` leaves it while it runs: status, first event, verdicts. */
function verification(root: string, name: string, dataset: string, verdicts: string, how: { summary?: boolean; state?: 'running' | 'finished' } = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const state = how.state ?? 'finished';
  writeFileSync(
    join(dir, 'status.json'),
    JSON.stringify({
      state,
      command: 'gp dataset verify x',
      pid: process.pid,
      host: '',
      started_at: '2026-11-01T10:00:00.000Z',
      episodes: { total: 1, finished: 0, resolved: 0, errored: 0 },
    }),
  );
  writeFileSync(
    join(dir, 'events.jsonl'),
    `${JSON.stringify({ ts: '2026-11-01T10:00:00.000Z', kind: 'run-start', command: 'gp dataset verify x', total: 3, resumed: 0, dataset })}\n`,
  );
  writeFileSync(join(dir, 'verdicts.jsonl'), verdicts);
  if (how.summary === true)
    writeFileSync(
      join(dir, 'verification.json'),
      JSON.stringify({ dataset, tasks: 1, repeats: 1, counts: {}, started_at: '2026-11-01T10:00:00.000Z', ended_at: '2026-11-01T10:00:09.000Z' }),
    );
  return dir;
}

test('a task gets the latest verdict among the verifications of its own file, not of another file', async () => {
  const root = scratch();
  const samples = join(root, 'datasets', 'samples.jsonl');
  const other = join(root, 'datasets', 'other.jsonl');
  const older = verification(
    root,
    'v-older',
    samples,
    verdict('t1', 'gold-fails', '2026-11-01T10:00:00.000Z', { failing: ['tests/a.py::x'] }) + verdict('t2', 'certified', '2026-11-01T10:00:01.000Z'),
    { summary: true },
  );
  const newer = verification(root, 'v-newer', samples, verdict('t1', 'certified', '2026-11-02T10:00:00.000Z'));
  verification(root, 'v-other', other, verdict('t2', 'empty-passes', '2026-11-03T10:00:00.000Z'));
  const certifications = new TaskCertifications();
  assert.deepEqual(await certifications.refresh([root]), { changed: true, problems: [] });
  assert.equal(certifications.latest(samples, 't1')?.verdict.status, 'certified');
  assert.equal(certifications.latest(samples, 't1')?.run, newer);
  assert.equal(certifications.latest(samples, 't2')?.run, older, 'the other file’s later verdict is not this file’s');
  assert.equal(certifications.latest(other, 't2')?.verdict.status, 'empty-passes');
  assert.equal(certifications.latest(samples, 't3'), undefined, 'never verified');
  rmSync(root, { recursive: true, force: true });
});

test('verdicts appended to a running verification are read incrementally, a torn line once it is whole', async () => {
  const root = scratch();
  const samples = join(root, 'samples.jsonl');
  const dir = verification(root, 'v', samples, verdict('t1', 'certified', '2026-11-01T10:00:00.000Z'), { state: 'running' });
  const certifications = new TaskCertifications();
  await certifications.refresh([root]);
  assert.equal(certifications.latest(samples, 't1')?.running, true, 'its process runs, so more verdicts may come');
  const line = verdict('t2', 'flaky', '2026-11-01T10:00:05.000Z', { flaky: ['t::a', 't::b'], repeats: 3 });
  appendFileSync(join(dir, 'verdicts.jsonl'), line.slice(0, 30));
  assert.deepEqual(await certifications.refresh([root]), { changed: false, problems: [] }, 'half a line is neither a verdict nor a problem');
  appendFileSync(join(dir, 'verdicts.jsonl'), line.slice(30));
  assert.equal((await certifications.refresh([root])).changed, true);
  const t2 = certifications.latest(samples, 't2');
  assert.ok(t2 !== undefined);
  assert.deepEqual(certificationOfVerdict(t2), {
    status: 'flaky',
    source: 'verification',
    reason: null,
    flaky: ['t::a', 't::b'],
    failing: [],
    passingWithoutFix: [],
    repeats: 3,
    run: dir,
    at: '2026-11-01T10:00:05.000Z',
    running: true,
  });
  assert.equal((await certifications.refresh([root])).changed, false, 'nothing appended, nothing changed');
  writeFileSync(
    join(dir, 'status.json'),
    JSON.stringify({
      state: 'finished',
      command: 'gp dataset verify x',
      pid: process.pid,
      host: '',
      started_at: '2026-11-01T10:00:00.000Z',
      episodes: { total: 2, finished: 2, resolved: 2, errored: 0 },
    }),
  );
  assert.equal((await certifications.refresh([root])).changed, true, 'its end changes what the view says');
  assert.equal(certifications.latest(samples, 't2')?.running, false);
  rmSync(root, { recursive: true, force: true });
});

test('a verdict of the machine gives way to any verdict of the task, and a deleted run is forgotten', async () => {
  const root = scratch();
  const samples = join(root, 'samples.jsonl');
  verification(root, 'a', samples, verdict('t1', 'not-gradable', '2026-11-01T10:00:00.000Z', { reason: 'pytest exited 4' }));
  const later = verification(root, 'b', samples, verdict('t1', 'infrastructure', '2026-11-02T10:00:00.000Z', { reason: 'the Docker daemon went away' }));
  const certifications = new TaskCertifications();
  await certifications.refresh([root]);
  assert.equal(certifications.latest(samples, 't1')?.verdict.status, 'not-gradable');
  rmSync(join(root, 'a'), { recursive: true });
  assert.equal((await certifications.refresh([root])).changed, true);
  assert.equal(certifications.latest(samples, 't1')?.run, later, 'with nothing else, the machine’s verdict shows');
  rmSync(root, { recursive: true, force: true });
});

test('a bad verdict line is a problem with its line, and the others still count', async () => {
  const root = scratch();
  const samples = join(root, 'samples.jsonl');
  const dir = verification(root, 'v', samples, `{"kind":"verdict"}\nnot json\n${verdict('t1', 'certified', '2026-11-01T10:00:00.000Z')}`);
  const certifications = new TaskCertifications();
  const { problems } = await certifications.refresh([root]);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? '', new RegExp(`^${dir}/verdicts\\.jsonl:1: `));
  assert.match(problems[1] ?? '', /verdicts\.jsonl:2: not JSON/);
  assert.equal(certifications.latest(samples, 't1')?.verdict.status, 'certified');
  rmSync(root, { recursive: true, force: true });
});

test('a run without verdicts is no verification, and one whose dataset cannot be known is not shown', async () => {
  const root = scratch();
  const samples = join(root, 'samples.jsonl');
  const rollout = join(root, 'rollout');
  mkdirSync(rollout);
  writeFileSync(join(rollout, 'resolved_config.yaml'), 'agent: rule\n');
  const old = verification(root, 'old', samples, verdict('t1', 'certified', '2026-11-01T10:00:00.000Z'));
  // An older gp wrote no dataset in its first event.
  writeFileSync(
    join(old, 'events.jsonl'),
    `${JSON.stringify({ ts: '2026-11-01T10:00:00.000Z', kind: 'run-start', command: 'gp dataset verify x', total: 1, resumed: 0 })}\n`,
  );
  const certifications = new TaskCertifications();
  assert.deepEqual(await certifications.refresh([root]), { changed: true, problems: [] });
  assert.equal(certifications.latest(samples, 't1'), undefined);
  rmSync(root, { recursive: true, force: true });
});

test('the later of a verdict and a certified row’s own certification is shown', () => {
  const latest = {
    verdict: JSON.parse(verdict('t1', 'gold-fails', '2026-11-02T10:00:00.000Z', { failing: ['a'] })) as TaskVerdict,
    run: '/o/v',
    running: false,
  };
  const row = { status: 'flaky' as const, run: '../outputs/v0', verified_at: '2026-11-01T10:00:00.000Z', repeats: 2, removed_flaky: ['t::x'] };
  assert.equal(taskCertification(latest, row)?.status, 'gold-fails', 'verified again since the row was certified');
  assert.deepEqual(taskCertification(undefined, row), {
    status: 'flaky',
    source: 'row',
    reason: null,
    flaky: ['t::x'],
    failing: [],
    passingWithoutFix: [],
    repeats: 2,
    run: '../outputs/v0',
    at: '2026-11-01T10:00:00.000Z',
    running: false,
  });
  assert.equal(taskCertification(latest, { ...row, verified_at: '2026-11-03T00:00:00.000Z' })?.source, 'row');
  assert.equal(taskCertification(undefined, null), null);
});
