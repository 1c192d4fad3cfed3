/**
 * Reading the runner witness's records out of a run's output (server/src/testing/witnessRecords.ts):
 * only records signed with the run's key count, they never stay in the log, and the verdict names
 * what made a run tampered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { ExecResult } from '../../server/src/protocol/index.js';
import { takeWitnessRecords, witnessVerdict, type WitnessKey } from '../../server/src/testing/witnessRecords.js';
import { runsRunnerDirectly } from '../../server/src/testing/runnerWitness.js';

const key: WitnessKey = { key: 'ab'.repeat(32), run: 'run1' };

function record(fields: Record<string, unknown>, signer = key.key): string {
  const data = Buffer.from(JSON.stringify({ run: 'run1', pid: 7, runner: 'pytest', ...fields })).toString('base64');
  return `\nGPWITNESS1 ${data} ${createHmac('sha256', Buffer.from(signer)).update(data).digest('hex')}\n`;
}

function result(stdout: string, stderr: string): ExecResult {
  return {
    exitCode: 0,
    stdout,
    stderr,
    durationMs: 1,
    timedOut: false,
    truncated: false,
    stdoutBytes: Buffer.byteLength(stdout),
    stderrBytes: Buffer.byteLength(stderr),
  };
}

const start = record({ event: 'start' });
const armed = record({ event: 'armed', blocked: ['passall'], inside: [] });
const cleanEnd = record({ event: 'end', armed: true, plugin: true, changed: [], changedCount: 0 });
const direct = { runsRunnerDirectly: true, timedOut: false };

test('removes signed records from both streams and keeps the log as it was', () => {
  const taken = takeWitnessRecords(result(`PASSED a${cleanEnd}`, `warn${start}${armed}tail\n`), key);
  assert.equal(taken.result.stdout, 'PASSED a');
  assert.equal(taken.result.stderr, 'warntail\n');
  assert.equal(taken.result.stdoutBytes, Buffer.byteLength('PASSED a'));
  assert.equal(taken.forged, 0);
  const verdict = witnessVerdict(taken.records, taken.forged, direct);
  assert.equal(verdict.state, 'clean');
  assert.deepEqual(verdict.blockedPlugins, ['passall']);
});

test('a record signed with another key, or of another run, is forged and the run tampered', () => {
  const other = record({ event: 'end', armed: true, plugin: true, changed: [], changedCount: 0 }, 'cd'.repeat(32));
  const wrongRun = record({ event: 'end', run: 'run2', armed: true, plugin: true, changed: [], changedCount: 0 });
  for (const fake of [other, wrongRun, '\nGPWITNESS1 e30= ' + '0'.repeat(64) + '\n']) {
    const taken = takeWitnessRecords(result(`${start}${armed}${fake}`, ''), key);
    assert.equal(taken.forged, 1);
    assert.doesNotMatch(taken.result.stdout, /GPWITNESS1/);
    const verdict = witnessVerdict(taken.records, taken.forged, direct);
    assert.equal(verdict.state, 'tampered');
    assert.match(verdict.reason ?? '', /did not verify/);
  }
});

test('a witness that started and never ended is tampered, unless the run hit its time limit', () => {
  const taken = takeWitnessRecords(result('', `${start}${armed}`), key);
  assert.match(witnessVerdict(taken.records, 0, direct).reason ?? '', /never reported its end/);
  assert.equal(witnessVerdict(taken.records, 0, { ...direct, timedOut: true }).state, 'cut');
});

test('names what changed, and a runner loaded from the repository', () => {
  const changed = record({ event: 'end', armed: true, plugin: true, changed: ['_pytest.reports.TestReport.__init__'], changedCount: 1 });
  const verdict = witnessVerdict(takeWitnessRecords(result(`${start}${armed}${changed}`, ''), key).records, 0, direct);
  assert.equal(verdict.state, 'tampered');
  assert.match(verdict.reason ?? '', /_pytest\.reports\.TestReport\.__init__/);
  const inside = record({ event: 'armed', blocked: [], inside: ['pytest from pytest.py'] });
  assert.match(
    witnessVerdict(takeWitnessRecords(result(`${start}${inside}${cleanEnd}`, ''), key).records, 0, direct).reason ?? '',
    /inside the repository or before the witness \(pytest from pytest.py\)/,
  );
});

test('pytest without the witness plugin is tampered', () => {
  const noPlugin = record({ event: 'end', armed: false, plugin: false, changed: [], changedCount: 0 });
  assert.match(witnessVerdict(takeWitnessRecords(result(`${start}${noPlugin}`, ''), key).records, 0, direct).reason ?? '', /without the witness plugin/);
});

test('no witness at all is tampered only when the command runs the runner itself', () => {
  assert.equal(witnessVerdict([], 0, direct).state, 'tampered');
  assert.equal(witnessVerdict([], 0, { runsRunnerDirectly: false, timedOut: false }).state, 'not-started');
  assert.equal(runsRunnerDirectly('python -m pytest -rA tests'), true);
  assert.equal(runsRunnerDirectly('cd x && python3 -m unittest -v t'), true);
  assert.equal(runsRunnerDirectly('./tests/runtests.py --verbosity 2 x'), true);
  assert.equal(runsRunnerDirectly('tox -e py39 -- pytest'), false);
  assert.equal(runsRunnerDirectly('bash eval.sh'), false);
});
