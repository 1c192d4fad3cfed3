/**
 * *Continue from Here…* in real VS Code (code-server + Chromium), on an episode of a real `gp
 * rollout` of a sample task (rule agent, local backend; docs/trajectory-viewer.md#continue-from-here):
 * step 3 selected in the viewer, the step's button asks for the agent and the count, the fork is
 * launched from the editor, and the comparison of parent and fork opens aligned at step 3 with the
 * steps before it marked as replayed; the Runs view shows the fork under the episode it continues,
 * with its two episodes, and among the runs with whose fork it is. Screenshots in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSession, stopSession } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { screenshotThemes } from './themes.js';
import { acceptQuickPick, expandRow, formatRows, openFromRow, runRowLabel, showView, viewRows, widenSideBar } from './views.js';
import { done, pending, waitFor } from './wait.js';
import { viewerShown, webviewWith } from './webviews.js';
import { sampleRollout } from './sampleRuns.js';
import { runCommand, typeIntoQuickInput } from './workbench.js';

const scenarioTimeout = { timeout: 240_000 };
const scenarios = new Scenarios();
const forkStep = 3;

/** Picks the quick pick's row whose label starts with `label`, by typing it as a person does. */
async function pickRow(page: Page, label: string): Promise<void> {
  await typeIntoQuickInput(page, label);
  await acceptQuickPick(page, `the quick pick to offer "${label}"`, (first) => first.includes(label));
}

let parentRun = '';

void describe('Continue from Here… in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({ fixture: 'workbench', extraFiles: { 'docker/repoenv_sample/sample_repo': 'repos/sample_repo' } });
      parentRun = sampleRollout(scenarios.session, ['--task', 'sample-calc-add']);
    },
    { timeout: 300_000 },
  );

  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it(
    'forks an episode at step 3 from the viewer and opens the comparison aligned there, the fork under its parent in the Runs view',
    scenarioTimeout,
    async () => {
      await scenarios.run('continue-from-here', async (s) => {
        scenarios.activation = 'failed';
        await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
        scenarios.activation = 'ready';
        await showView(s.page, 'Runs');
        await widenSideBar(s.page, 160);
        await expandRow(s.page, 'Runs', runRowLabel(parentRun));
        await openFromRow(s.page, 'Runs', 'sample-calc-add', 'the trajectory viewer of sample-calc-add', viewerShown(s.page));
        const viewer = await webviewWith(s.page, '#step-list .step[data-step="3"]', 'the viewer with step 3 in its list');
        await viewer.locator(`#step-list .step[data-step="${forkStep}"]`).click();
        const button = viewer.locator('#continue-from-here');
        await button.waitFor({ state: 'visible', timeout: 15_000 });
        assert.match((await viewer.locator('#step-title').textContent()) ?? '', new RegExp(`^Step ${forkStep} `));
        await screenshotThemes(s, 'continue-from-here-step', ['light', 'dark']);
        await button.click();
        await pickRow(s.page, 'Rule agent');
        await pickRow(s.page, '2');

        // The comparison opens once the fork's first episode has replayed steps 1–2 and taken step 3.
        const compare = await webviewWith(s.page, '#align-row', 'the comparison aligned at the fork step', 120_000);
        assert.equal(await compare.locator('#align-row').getAttribute('data-step'), String(forkStep));
        const replayed = await compare.locator('tr.replayed').count();
        assert.equal(replayed, forkStep - 1, 'the steps before the fork read as replayed from the parent');
        assert.match(
          (await compare.locator('#fork-note').textContent()) ?? '',
          new RegExp(`B continues A from step ${forkStep}: steps 1–${forkStep - 1} are A's`),
        );
        const inView = await compare.locator('#align-row').evaluate((row) => {
          const box = row.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
        });
        assert.ok(inView, 'the page is scrolled to the fork step');

        // The Runs view: the parent's episode opens to its fork, which opens to its two episodes; the fork is also a run of its own.
        const rows = await waitFor(
          'the fork under its parent episode, with its two episodes, and among the runs',
          async () => {
            const now = await viewRows(s.page, 'Runs');
            const parent = now.findIndex((r) => r.label === 'sample-calc-add' && r.level === 2);
            const fork = now.findIndex((r) => r.label === `fork from step ${forkStep}`);
            const level = now[fork]?.level ?? 0;
            const after = fork < 0 ? [] : now.slice(fork + 1);
            const end = after.findIndex((r) => r.level <= level);
            const episodes = (end < 0 ? after : after.slice(0, end)).filter((r) => r.level === level + 1);
            const topLevel = now.some((r) => r.level === 1 && r.description.includes(`fork of sample-calc-add at step ${forkStep}`));
            const ok =
              parent >= 0 &&
              fork === parent + 1 &&
              now[fork]?.level === 3 &&
              /^rule · /.test(now[fork]?.description ?? '') &&
              episodes.length === 2 &&
              topLevel;
            return ok ? done(now) : pending(formatRows(now));
          },
          { timeoutMs: 60_000 },
        );
        assert.ok(
          rows.every((r) => !r.label.includes('-fork-')),
          'a fork run is labelled by its times, not its folder name',
        );
        await screenshotThemes(s, 'continue-from-here-compare', ['light', 'dark']);

        // The fork's own viewer names the episode it continues and marks the steps it replayed.
        await compare.locator('vscode-button[data-side="right"]').click();
        const forkViewer = await webviewWith(s.page, '#episode-fork', "the fork's viewer naming its parent");
        assert.equal((await forkViewer.locator('#episode-fork').textContent())?.trim(), `fork of sample-calc-add from step ${forkStep}`);
        assert.deepEqual(
          await forkViewer
            .locator('#step-list .step')
            .evaluateAll((items) => items.map((i) => [i.getAttribute('data-step'), i.querySelector('.marker.replayed') !== null])),
          [
            ['1', true],
            ['2', true],
            ['3', false],
            ['4', false],
          ],
        );
        assert.ok(await forkViewer.locator('#step-list .step[data-step="1"] .marker.replayed').isVisible(), 'the mark stays visible beside a long summary');
        // The viewer opened beside the comparison; one column shows its step list whole.
        await runCommand(s.page, 'View: Single Column Editor Layout');
        // Moved to another group, the viewer's page is made again; the picture waits for it.
        const moved = await webviewWith(s.page, '#episode-fork', "the fork's viewer in one column");
        await moved.locator('#step-list .step[data-step="1"] .marker.replayed').waitFor({ state: 'visible', timeout: 30_000 });
        await screenshotThemes(s, 'continue-from-here-fork', ['light', 'dark']);
      });
    },
  );
});
