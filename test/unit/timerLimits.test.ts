/**
 * Time limits from files are bounded by what a timer can hold (protocol/durations.ts): beyond it,
 * Node would fire the timer after 1 ms and every run would end not gradable. Each surface that
 * reads one (a task row, an experiment config; Harbor's task.toml in harborTask.test.ts) reports
 * it as an error at its place.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkConfigText } from '../../server/src/config/index.js';
import { maxTimerSeconds } from '../../server/src/protocol/durations.js';
import { validateJsonl } from '../../server/src/tasks/index.js';

test('the bound is the longest timer Node holds', () => {
  assert.equal(maxTimerSeconds, 2147483);
  // One millisecond more than the bound is what Node clamps.
  assert.ok(maxTimerSeconds * 1000 <= 2 ** 31 - 1 && (maxTimerSeconds + 1) * 1000 > 2 ** 31 - 1);
});

test('a task row whose episode_timeout no timer can hold is an error on that key', () => {
  const row =
    '{"task_id":"a","repo":"x/y","episode_timeout":99999999999999,"sandbox":{"local_repo":"/r","workdir":"/w","test_command":"pytest"},"FAIL_TO_PASS":["t"]}';
  const report = validateJsonl(`${row}\n`);
  const finding = report.findings.find((f) => f.severity === 'error' && /episode_timeout/.test(f.message));
  assert.ok(finding !== undefined, JSON.stringify(report.findings));
  // Lines count from 0 here; the CLI prints them from 1 (`huge.jsonl:1:51`).
  assert.equal(finding.line, 0);
  assert.equal(row.slice(finding.start, finding.start + '"episode_timeout"'.length), '"episode_timeout"');
  assert.equal(
    validateJsonl(`${row.replace('99999999999999', String(maxTimerSeconds))}\n`).findings.filter((f) => /episode_timeout/.test(f.message)).length,
    0,
  );
});

test('an experiment config whose test_timeout no timer can hold is an error at its line', () => {
  const text = 'sandbox:\n  test_timeout: 1e12\n';
  const finding = checkConfigText(text).findings.find((f) => f.severity === 'error' && /test_timeout/.test(f.message));
  assert.ok(finding !== undefined);
  assert.equal(text.slice(0, finding.range.start).split('\n').length, 2);
  assert.match(finding.message, /≤ 2147483/);
});
