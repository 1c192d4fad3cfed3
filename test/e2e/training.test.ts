/**
 * Training from the editor in real VS Code (code-server 4.100.3, the packaged `.vsix`, Debian's
 * Chromium): `Graph Planner: Start Training…` from the command palette starts the smoke run (Verl's
 * agent loop, GRPO and actor update on CPU through our environment service) detached, a terminal
 * following its log; its progress ends on its run, its end notice offers Show Metrics and Show Log
 * (issue 37), the Runs view shows the run reach finished under the training icon, and the metrics
 * page Show Metrics opens draws the curves of its three steps; the
 * default smoke, the real model trained on its own replies, shows like any other run, and the
 * trajectory viewer shows the model's own replies. Needs the trainer environment (python/setup.sh)
 * and the language model (scripts/setup-language-model.sh). Saves `training-*.png` to `test-artifacts/e2e/`.
 *
 * Run: `bash python/setup.sh && bash test/e2e/setup.sh && npm run package && node --import tsx --test test/e2e/training.test.ts`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { stopSession } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { screenshotThemes } from './themes.js';
import {
  acceptQuickPick,
  expandRow,
  openFromRow,
  quickPickRows,
  rowLocator,
  runRowLabel,
  showView,
  waitForNotification,
  waitForRow,
  widenSideBar,
} from './views.js';
import { finishedTrainingRun, startTrainingSession, trainingRuns } from './trainingRuns.js';
import { done, pending, waitFor } from './wait.js';
import { viewerShown } from './webviews.js';
import { openFile, runCommand, screenshot } from './workbench.js';

const scenarios = new Scenarios();
const visibleWebview = (page: Page): FrameLocator => page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');

void describe('Training from the editor (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startTrainingSession();
    },
    { timeout: 240_000 },
  );
  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('Start Training… runs the smoke training to finished, and its metrics page draws the curves', { timeout: 420_000 }, async () => {
    await scenarios.run('training', async (s) => {
      await openFile(s.page, 'configs/experiments/train_smoke.yaml');
      // Start Training… asks the server for the training modes, so the scenario waits for it first.
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      await runCommand(s.page, 'Graph Planner: Start Training');
      // The scripted smoke: three deterministic steps in a minute or two (the model policy's take minutes each).
      await waitFor('the training modes, the model smoke run first', async () => {
        const rows = await quickPickRows(s.page);
        return /Smoke run/.test(rows[0] ?? '') && rows.some((r) => /Smoke run, scripted policy/.test(r))
          ? done(rows)
          : pending(`quick pick rows:\n${rows.join('\n')}`);
      });
      await s.page.keyboard.type('scripted');
      await acceptQuickPick(s.page, 'the scripted smoke run', (first) => /Smoke run, scripted policy/.test(first));
      const run = await finishedTrainingRun(s, [], 300_000);
      const name = runRowLabel(run).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      // The progress followed exactly this run (its folder was chosen before gp train started) and ended on it.
      await loggedMs(s, 'the training progress to end on its run', new RegExp(`Launch progress: Training ${name} (?:running|ended) after (\\d+) ms`));
      const notice = new RegExp(`^Training ${name} finished`);
      await waitForNotification(s.page, 'the end notice of the training run', notice, { timeoutMs: 60_000 });
      const toast = s.page
        .locator('.notifications-toasts .notification-toast')
        .filter({ has: s.page.locator('.notification-list-item-message', { hasText: notice }) })
        .first();
      const buttons = (await toast.locator('.notification-list-item-buttons-container .monaco-button').allTextContents()).map((t) => t.trim());
      assert.deepEqual(buttons, ['Show Metrics', 'Show Log', 'Re-launch']);
      // The pointer rests on the toast, which VS Code then keeps shown through the theme changes.
      await toast.hover();
      await screenshotThemes(s, 'training-a-end-notice');
      // Clicked while the toast shows: VS Code hides an information toast after a while, and the
      // screenshots below take longer than that on a loaded machine.
      await toast.locator('.notification-list-item-buttons-container .monaco-button', { hasText: 'Show Metrics' }).first().click({ timeout: 10_000 });
      // The terminal has done its part; the page gets the room.
      if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
      await showView(s.page, 'Runs');
      await widenSideBar(s.page, 200);
      const row = await waitForRow(
        s.page,
        'Runs',
        `${run} finished in the Runs view`,
        (r) => r.label === runRowLabel(run) && /(^| · )finished\b/.test(r.description),
      );
      assert.match(row.description, /train/);
      assert.equal(await rowLocator(s.page, 'Runs', runRowLabel(run)).locator('.codicon-rocket').count(), 1, 'the training run is marked with its kind’s icon');
      await screenshotThemes(s, 'training-a-run-finished');
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
  void it(
    'the default smoke trains the real model on its own replies: the Runs view shows it finished and the trajectory viewer shows the model’s reply',
    { timeout: 600_000 },
    async () => {
      await scenarios.run('training-model', async (s) => {
        const before = trainingRuns(s.workspace);
        await openFile(s.page, 'configs/experiments/train_smoke.yaml');
        await runCommand(s.page, 'Graph Planner: Start Training');
        await acceptQuickPick(s.page, 'the training modes, the model smoke run first', (first) => /Smoke run/.test(first) && !/scripted/.test(first));
        const run = await finishedTrainingRun(s, before, 480_000);
        const checks = JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'smoke', 'checks.json'), 'utf8')) as {
          ok: boolean;
          policy: string;
          steps: { samples: { episode_id: string }[] }[];
        };
        assert.equal(checks.ok, true);
        assert.equal(checks.policy, 'model');
        await showView(s.page, 'Runs');
        if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
        await waitForRow(s.page, 'Runs', `${run} finished in the Runs view`, (r) => r.label === runRowLabel(run) && /(^| · )finished\b/.test(r.description));
        const episode = checks.steps[1]?.samples[0]?.episode_id ?? '';
        const lines = readFileSync(join(s.workspace, 'outputs', run, 'trajectories', `${episode}.jsonl`), 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as { type: string; response?: string; task_id?: string });
        const reply = lines.find((r) => r.type === 'step')?.response ?? '';
        const task = lines.find((r) => r.type === 'start')?.task_id ?? '';
        assert.ok(reply.trim() !== '', `the model wrote a first reply in ${episode}`);
        await expandRow(s.page, 'Runs', runRowLabel(run));
        // A GRPO group is several episodes of one task, so the run lists its tasks and the episode is under its own.
        await expandRow(s.page, 'Runs', task);
        await openFromRow(s.page, 'Runs', episode, `the trajectory viewer of ${episode}`, viewerShown(s.page));
        const frame = visibleWebview(s.page);
        // The reply the viewer shows is the text the model sampled (its first line, as rendered).
        const firstLine = reply.trim().split('\n')[0] ?? '';
        await waitFor('the model’s own reply in the trajectory viewer', async () => {
          const detail =
            (await frame
              .locator('article.detail')
              .textContent()
              .catch(() => null)) ?? '';
          return detail.includes('Model reply') && detail.includes(firstLine) ? done(true) : pending(`detail: ${detail.slice(0, 400)}`);
        });
        await screenshot(s.page, 'training-c-model-reply');
      });
    },
  );
});
