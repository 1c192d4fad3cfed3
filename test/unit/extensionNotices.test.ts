/**
 * What people read after a check: the "Check Config" message, the dataset-from-disk summary
 * (once per file), and the resolved config view.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkResultNotice, datasetSummaryNotice, OncePerKey } from '../../extension/src/notices.js';
import { resolvedConfigText, serverNotRunningText } from '../../extension/src/resolvedConfigText.js';

describe('Check Config notice', () => {
  const base = { kind: 'experiment' as const, errors: 0, warnings: 0, infos: 0, summary: 'No problems.' };

  test('is an error with the Problems panel when the file has errors', () => {
    const notice = checkResultNotice({ ...base, errors: 2, warnings: 1, summary: '2 errors, 1 warning' }, 'configs/debug.yaml');
    assert.deepEqual(notice, { severity: 'error', text: 'configs/debug.yaml: 2 errors, 1 warning', hasProblems: true });
  });

  test('is a warning when the file has only warnings', () => {
    assert.equal(checkResultNotice({ ...base, warnings: 1 }, 'a.yaml').severity, 'warning');
  });

  test('is information, without the Problems panel, on a clean file', () => {
    assert.deepEqual(checkResultNotice(base, 'a.yaml'), { severity: 'info', text: 'a.yaml: No problems.', hasProblems: false });
  });

  test('opens the Problems panel for hints too', () => {
    assert.equal(checkResultNotice({ ...base, infos: 1 }, 'a.yaml').hasProblems, true);
  });

  test('counts the problems itself when the server sends no summary', () => {
    assert.equal(checkResultNotice({ ...base, errors: 1, warnings: 2, summary: ' ' }, 'a.yaml').text, 'a.yaml: 1 error, 2 warnings');
  });

  test('points at the glob settings when the file is neither an experiment nor a dataset', () => {
    assert.match(checkResultNotice({ ...base, kind: 'other' }, 'notes.yaml').text, /graphPlanner\.experimentGlobs/);
  });
});

describe('dataset summary notice', () => {
  const summary = { uri: 'file:///w/datasets/big.jsonl', lines: 12346, tasks: 12345, errors: 0, warnings: 0, fromDisk: true, durationMs: 1234 };

  test('reports tasks, lines, problems and time in one sentence', () => {
    assert.deepEqual(datasetSummaryNotice(summary, 'datasets/big.jsonl'), {
      severity: 'info',
      text: 'Checked datasets/big.jsonl from disk: 12,345 tasks on 12,346 lines, 0 errors, 0 warnings (1.2 s).',
      hasProblems: false,
    });
  });

  test('warns, rather than raising an error dialog nobody asked for, when the file has problems', () => {
    const notice = datasetSummaryNotice({ ...summary, errors: 1, warnings: 1, lines: 1, tasks: 1, durationMs: 40 }, 'd.jsonl');
    assert.equal(notice.severity, 'warning');
    assert.equal(notice.hasProblems, true);
    assert.equal(notice.text, 'Checked d.jsonl from disk: 1 task on 1 line, 1 error, 1 warning (40 ms).');
  });

  test('is shown once per file, not on every update', () => {
    const once = new OncePerKey();
    assert.equal(once.first('file:///a.jsonl'), true);
    assert.equal(once.first('file:///a.jsonl'), false);
    assert.equal(once.first('file:///b.jsonl'), true);
  });
});

describe('resolved config view', () => {
  test('shows the merged YAML under a read-only header with the problem counts', () => {
    const text = resolvedConfigText({ yaml: 'env:\n  max_steps: 6', errors: 0, warnings: 1 }, 'configs/debug.yaml');
    assert.equal(
      text,
      '# Resolved config of configs/debug.yaml: defaults merged with the file (0 errors, 1 warning).\n' +
        '# Read-only; it refreshes when the file changes. Edit the file itself to change it.\n' +
        'env:\n  max_steps: 6\n',
    );
  });

  test('says why there is no YAML when the server could not resolve the file', () => {
    const text = resolvedConfigText({ yaml: null, errors: 1, warnings: 0, reason: 'YAML syntax error at line 3' }, 'a.yaml');
    assert.equal(text, '# Graph Planner could not resolve a.yaml: YAML syntax error at line 3.\n# 1 error, 0 warnings; see the Problems panel.\n');
  });

  test('is a valid YAML comment when the server is not running', () => {
    for (const line of serverNotRunningText('a.yaml').trimEnd().split('\n')) assert.match(line, /^# /);
  });
});
