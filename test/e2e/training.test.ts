/**
 * Training from the editor in real VS Code (code-server 4.100.3, the packaged `.vsix`, Debian's
 * Chromium): `Graph Planner: Start Training…` from the command palette starts the smoke run (Verl's
 * agent loop, GRPO and actor update on CPU through our environment service) in a terminal, the Runs
 * view shows the run reach finished, and its metrics page draws the curves of its three steps.
 * Needs the trainer environment (python/setup.sh). Saves `training-*.png` to `test-artifacts/e2e/`.
 *
 * Run: `bash python/setup.sh && bash test/e2e/setup.sh && npm run package && node --import tsx --test test/e2e/training.test.ts`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { runStatusSchema } from '../../server/src/protocol/runs.js';
import { trainerPython } from '../../server/src/trainer/index.js';
import { startSession, stopSession } from './harness.js';
import { Scenarios } from './scenarios.js';
import { acceptQuickPick, chooseFromContextMenu, quickPickRows, showView, terminalText, waitForRow, widenSideBar } from './views.js';
import { done, pending, waitFor } from './wait.js';
import { openFile, runCommand, screenshot } from './workbench.js';

const scenarios = new Scenarios();
const visibleWebview = (page: Page): FrameLocator => page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');

function trainingRuns(workspace: string): string[] {
  const out = join(workspace, 'outputs');
  return existsSync(out) ? readdirSync(out).filter((n) => n.startsWith('train_smoke-train-')) : [];
}

void describe('Training from the editor (code-server + Chromium)', () => {
  before(
    async () => {
      const probe = spawnSync(trainerPython(undefined), ['-c', 'import verl, ray'], { encoding: 'utf8' });
      if (probe.status !== 0) throw new Error(`the trainer environment is missing (${trainerPython(undefined)}): run bash python/setup.sh`);
      scenarios.session = await startSession({ fixture: 'workbench', extraFiles: { 'docker/repoenv_sample/sample_repo': 'repos/sample_repo' } });
    },
    { timeout: 240_000 },
  );
  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('Start Training… runs the smoke training to finished, and its metrics page draws the curves', { timeout: 420_000 }, async () => {
    await scenarios.run('training', async (s) => {
      await openFile(s.page, 'configs/experiments/train_smoke.yaml');
      await runCommand(s.page, 'Graph Planner: Start Training');
      // The scripted smoke: three deterministic steps in a minute or two (the model policy's take minutes each).
      await waitFor('the training modes, the model smoke run first', async () => {
        const rows = await quickPickRows(s.page);
        return /Smoke run/.test(rows[0] ?? '') && rows.some((r) => /Smoke run, scripted policy/.test(r)) ? done(rows) : pending(`quick pick rows:\n${rows.join('\n')}`);
      });
      await s.page.keyboard.type('scripted');
      await acceptQuickPick(s.page, 'the scripted smoke run', (first) => /Smoke run, scripted policy/.test(first));
      const run = await waitFor('the training run folder', async () => {
        const runs = trainingRuns(s.workspace);
        return runs.length === 1 && runs[0] !== undefined ? done(runs[0]) : pending(`runs: ${runs.join(', ') || '(none)'}\n${await terminalText(s.page)}`);
      }, { timeoutMs: 90_000 });
      const statusFile = join(s.workspace, 'outputs', run, 'status.json');
      await waitFor('the smoke training to finish', async () => {
        const state = existsSync(statusFile) ? runStatusSchema.parse(JSON.parse(readFileSync(statusFile, 'utf8'))).state : 'starting';
        if (state === 'failed' || state === 'interrupted') throw new Error(`the training run ${state}:\n${await terminalText(s.page)}`);
        return state === 'finished' ? done(state) : pending(`${state}\n${(await terminalText(s.page)).slice(-1500)}`);
      }, { timeoutMs: 300_000 });
      await showView(s.page, 'Runs');
      await widenSideBar(s.page, 200);
      const row = await waitForRow(s.page, 'Runs', `${run} finished in the Runs view`, (r) => r.label === run && r.description.startsWith('finished'));
      assert.match(row.description, /train/);
      await screenshot(s.page, 'training-a-run-finished');
      // The terminal has done its part; the page gets the room.
      if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
      await chooseFromContextMenu(s.page, 'Runs', run, 'Show Metrics');
      const page = visibleWebview(s.page);
      for (const chart of ['reward', 'resolved', 'length', 'kl', 'timing']) {
        await page.locator(`#chart-${chart}`).waitFor({ state: 'visible', timeout: 60_000 });
      }
      const points = await page.locator('#chart-reward').getAttribute('data-points');
      assert.equal(points, '3', 'one reward point per step of the three-step smoke');
      assert.equal(await page.locator('#chart-reward polyline.smooth').count(), 1);
      assert.equal(await page.locator('#run-state').textContent(), 'finished');
      await screenshot(s.page, 'training-b-metrics');
      // Wall time on the x axis draws the same points against time.
      await page.locator('vscode-button[data-axis="time"]').click();
      await page.locator('#chart-reward polyline.smooth').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#chart-reward').getAttribute('data-points'), '3');
    });
  });
});
