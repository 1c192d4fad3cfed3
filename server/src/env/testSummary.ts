/** A test run as an observation shows it: passed or not, counts, failing tests, the end of the log. */
import type { TestSummary } from '../protocol/observation.js';
import { gradePassed, type TestRun } from '../testing/index.js';

const tailChars = 2000;

export function summariseTests(run: TestRun): TestSummary {
  const failing = Object.entries(run.record.tests)
    .filter(([, s]) => s === 'FAILED' || s === 'ERROR')
    .map(([name]) => name);
  const tail = run.output.length > tailChars ? run.output.slice(-tailChars) : run.output;
  const grade = run.record.grade;
  return {
    passed: gradePassed(grade),
    counts: run.record.counts,
    failing: failing.slice(0, 20),
    tail: tail.trimEnd(),
    duration_ms: run.record.durationMs,
    ...(grade.kind === 'invalid' ? { not_gradable: grade.reason } : {}),
  };
}
