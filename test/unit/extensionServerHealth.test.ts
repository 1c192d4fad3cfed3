/**
 * The status bar text, tooltip and colour for every server state.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { healthFromStatus, statusView, type ServerHealth } from '../../extension/src/serverHealth.js';

describe('status bar view', () => {
  test('shows a spinner while the server starts', () => {
    const view = statusView({ kind: 'starting', message: 'Loading schemas' });
    assert.equal(view.text, '$(loading~spin) Graph Planner');
    assert.match(view.tooltip, /is starting\.\nLoading schemas\n/);
    assert.equal(view.background, undefined);
  });

  test('shows a check mark and the version when the server is ready', () => {
    const view = statusView({ kind: 'ready', message: '', version: '0.1.0' });
    assert.equal(view.text, '$(check) Graph Planner');
    assert.equal(view.tooltip, 'Graph Planner server 0.1.0 is ready.\nClick to show the Graph Planner output.');
    assert.equal(view.background, undefined);
  });

  test('leaves the version out when the server did not report one', () => {
    assert.match(statusView({ kind: 'ready', message: '', version: '' }).tooltip, /^Graph Planner server is ready\./);
  });

  test('spins while the server is busy and says with what', () => {
    const view = statusView({ kind: 'busy', message: 'Validating datasets/big.jsonl', version: '0.1.0' });
    assert.equal(view.text, '$(sync~spin) Graph Planner');
    assert.match(view.tooltip, /busy\.\nValidating datasets\/big\.jsonl/);
  });

  test('colours the item as an error when the server reports one', () => {
    const view = statusView({ kind: 'error', message: 'Schema failed to compile', version: '0.1.0' });
    assert.equal(view.text, '$(error) Graph Planner');
    assert.equal(view.background, 'error');
    assert.match(view.tooltip, /Schema failed to compile/);
  });

  test('warns when the server is stopped and says how to start it', () => {
    const view = statusView({ kind: 'stopped' });
    assert.equal(view.text, '$(circle-slash) Graph Planner');
    assert.equal(view.background, 'warning');
    assert.match(view.tooltip, /Restart Server/);
  });

  test('colours the item as an error when the server crashed', () => {
    const view = statusView({ kind: 'crashed', message: 'The server stopped unexpectedly.' });
    assert.equal(view.text, '$(error) Graph Planner');
    assert.equal(view.background, 'error');
    assert.match(view.tooltip, /not running\.\nThe server stopped unexpectedly\./);
  });

  test('always tells the person that clicking shows the output', () => {
    const states: ServerHealth[] = [
      { kind: 'starting', message: '' },
      { kind: 'ready', message: '', version: '1' },
      { kind: 'busy', message: '', version: '1' },
      { kind: 'error', message: 'x', version: '1' },
      { kind: 'stopped' },
      { kind: 'crashed', message: 'x' },
    ];
    for (const health of states) assert.match(statusView(health).tooltip, /Click to show the Graph Planner output\.$/, health.kind);
  });
});

describe('health from the server status notification', () => {
  test('maps every reported state and keeps message and version', () => {
    assert.deepEqual(healthFromStatus({ state: 'starting', message: 'm', version: '1' }), { kind: 'starting', message: 'm' });
    for (const state of ['ready', 'busy', 'error'] as const) {
      assert.deepEqual(healthFromStatus({ state, message: 'm', version: '1', startupMs: 5 }), { kind: state, message: 'm', version: '1' });
    }
  });
});
