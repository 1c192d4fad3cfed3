/**
 * Defaults a newcomer can trust, and the walkthrough on a new profile, in real VS Code (code-server
 * 4.100.3, the packaged `.vsix`, Debian's Chromium), issue 37.
 *
 * Launch defaults: the workspace is a clone's configs and datasets (the gold-prediction files
 * included) plus two test fixtures as a clone has them under `test/e2e/fixtures/`, and one more
 * experiment that names `datasets/samples.jsonl`. With no editor open, *Start Rollout…* starts
 * from `configs/experiments/sample.yaml` (not `embedded_model.yaml`, first alphabetically) on
 * `datasets/sample/tasks.jsonl`; neither picker offers a gold-prediction file or a fixture, and
 * each shows task counts; choosing the other experiment moves the dataset to the one it names.
 *
 * First activation: a fresh profile whose workbench opens VS Code's own welcome page, as a new
 * user's does (the other files turn it off), shows the Graph Planner walkthrough in front; the
 * next start of the same profile does not open it again.
 *
 * Each saves `launch-defaults-*` and `first-activation-*` in light, dark and high contrast to
 * `test-artifacts/e2e/`.
 *
 * Run: `bash test/e2e/setup.sh && npm run build && npm run package && node --import tsx --test test/e2e/launchDefaults.test.ts`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSession, stopSession, type Session } from './harness.js';
import { extensionLog, loggedMs, Scenarios } from './scenarios.js';
import { currentTheme, screenshotThemes, setTheme } from './themes.js';
import { quickPickRows } from './views.js';
import { done, pending, waitFor } from './wait.js';
import { runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 300_000 };

/** The rows of the open quick pick, waited for until `accept` passes. */
async function waitForQuickPick(page: Page, what: string, accept: (rows: string[]) => boolean): Promise<string[]> {
  return waitFor(
    what,
    async () => {
      const rows = await quickPickRows(page);
      return accept(rows) ? done(rows) : pending(`quick pick rows:\n${rows.join('\n') || '(none)'}`);
    },
    { timeoutMs: 60_000 },
  );
}

/** Clicks the quick pick's row whose label starts with `label`. */
async function chooseRow(page: Page, label: string): Promise<void> {
  await page.locator(`.quick-input-widget .quick-input-list .monaco-list-row[aria-label*="${label}"]`).first().click();
}

/** Escape until no quick input is left: closing a picker brings the review list back a moment later. */
async function closeQuickInputs(page: Page): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(2_500);
    if (!(await widget.isVisible())) return;
  }
}

/** A row's aria-label without the name of its icon (`database  Dataset, …`). */
const plain = (row: string): string => row.replace(/^[a-z-]+ {2}/, '');

/** What the review list's row `name` says: `Dataset` → `datasets/sample/tasks.jsonl`. */
const reviewValue = (rows: readonly string[], name: string): string =>
  rows
    .map(plain)
    .find((r) => r.startsWith(`${name}, `))
    ?.split(', ')[1] ?? '';

/** The review list of Start Rollout…, opened with no editor in front. */
async function openReview(page: Page): Promise<string[]> {
  await closeQuickInputs(page);
  await runCommand(page, 'Graph Planner: Start Rollout');
  return waitForQuickPick(
    page,
    'the review list with its experiment and dataset',
    (rows) => reviewValue(rows, 'Experiment') !== '' && reviewValue(rows, 'Dataset') !== '' && rows.some((r) => plain(r).startsWith('Start rollout')),
  );
}

/** Screenshots of a quick pick in each theme: the theme picker is a quick input too, so the list is opened again in each. */
async function quickPickThemes(s: Session, name: string, open: () => Promise<unknown>): Promise<void> {
  const was = await currentTheme(s.page);
  for (const kind of ['light', 'dark', 'high-contrast'] as const) {
    await setTheme(s, kind);
    await open();
    await screenshot(s.page, `${name}-${kind}`);
    await closeQuickInputs(s.page);
  }
  if (was !== 'other') await setTheme(s, was);
}

const offersNoGoldNorFixture = (rows: readonly string[]): boolean => rows.every((r) => !/gold_predictions|(^|\/)test\//.test(r));

void describe('Launch defaults with no editor open (code-server + Chromium)', () => {
  const scenarios = new Scenarios();
  before(
    async () => {
      scenarios.session = await startSession({
        fixture: 'clone',
        extraFiles: {
          'configs/experiments': 'configs/experiments',
          datasets: 'datasets',
          schemas: 'schemas',
          'docker/repoenv_sample/sample_repo': 'docker/repoenv_sample/sample_repo',
          'test/e2e/fixtures/workspace/datasets/tasks.jsonl': 'test/e2e/fixtures/workspace/datasets/tasks.jsonl',
          'test/e2e/fixtures/workbench/configs/experiments/sample.yaml': 'test/e2e/fixtures/workbench/configs/experiments/sample.yaml',
        },
      });
      // Another experiment, on the other sample dataset, for the dataset to follow.
      writeFileSync(
        join(scenarios.session.workspace, 'configs/experiments/all_samples.yaml'),
        'experiment:\n  name: all_samples\npaths:\n  dataset_train: datasets/samples.jsonl\n  dataset_val: null\nrollout:\n  agent: rule\nsandbox:\n  backend: local\n',
      );
    },
    { timeout: 240_000 },
  );
  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it(
    '(a) Start Rollout starts from the sample experiment and its dataset; the pickers offer no gold file nor fixture and show counts',
    scenarioTimeout,
    async () => {
      await scenarios.run('launch-defaults-a', async (s) => {
        scenarios.activation = 'failed';
        await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
        scenarios.activation = 'ready';
        assert.equal(await s.page.locator('.part.editor .tab').count(), 0, 'an editor is open');

        const review = await openReview(s.page);
        assert.equal(reviewValue(review, 'Experiment'), 'configs/experiments/sample.yaml', review.join('\n'));
        assert.equal(reviewValue(review, 'Dataset'), 'datasets/sample/tasks.jsonl', review.join('\n'));
        await closeQuickInputs(s.page);
        await quickPickThemes(s, 'launch-defaults-a-review', () => openReview(s.page));

        const openDatasets = async (): Promise<string[]> => {
          await openReview(s.page);
          await chooseRow(s.page, 'Dataset');
          return waitForQuickPick(s.page, 'the dataset picker', (rows) => rows.some((r) => r.startsWith('datasets/samples.jsonl')));
        };
        const datasets = await openDatasets();
        assert.ok(offersNoGoldNorFixture(datasets), `offered:\n${datasets.join('\n')}`);
        assert.ok(
          datasets.some((r) => /^datasets\/sample\/tasks\.jsonl, 3 tasks$/.test(r)),
          datasets.join('\n'),
        );
        assert.ok(
          datasets.some((r) => /^datasets\/samples\.jsonl, 7 tasks$/.test(r)),
          datasets.join('\n'),
        );
        await closeQuickInputs(s.page);
        await quickPickThemes(s, 'launch-defaults-a-datasets', openDatasets);

        const openExperiments = async (): Promise<string[]> => {
          await openReview(s.page);
          await chooseRow(s.page, 'Experiment');
          return waitForQuickPick(s.page, 'the experiment picker with each one’s dataset', (rows) =>
            rows.some((r) => r.startsWith('configs/experiments/all_samples.yaml, datasets/samples.jsonl · 7 tasks')),
          );
        };
        const experiments = await openExperiments();
        assert.ok(offersNoGoldNorFixture(experiments), `offered:\n${experiments.join('\n')}`);
        assert.ok(experiments.includes('configs/experiments/sample.yaml, datasets/sample/tasks.jsonl · 3 tasks'), experiments.join('\n'));
        await quickPickThemes(s, 'launch-defaults-a-experiments', openExperiments);

        await openExperiments();
        await chooseRow(s.page, 'configs/experiments/all_samples.yaml');
        const after = await waitForQuickPick(
          s.page,
          'the review list on the other experiment',
          (rows) => reviewValue(rows, 'Experiment') === 'configs/experiments/all_samples.yaml',
        );
        assert.equal(reviewValue(after, 'Dataset'), 'datasets/samples.jsonl', after.join('\n'));
        await screenshot(s.page, 'launch-defaults-a-followed');
        await closeQuickInputs(s.page);
      });
    },
  );
});

const walkthroughTab = (page: Page) => page.locator('.part.editor .tab.active', { hasText: 'Walkthrough: Graph Planner' });

void describe('The walkthrough on a fresh profile with VS Code’s own welcome page (code-server + Chromium)', () => {
  const scenarios = new Scenarios();
  before(
    async () => {
      scenarios.session = await startSession({
        fixture: 'clone',
        extraFiles: { 'configs/experiments/sample.yaml': 'configs/experiments/sample.yaml', 'datasets/sample': 'datasets/sample', schemas: 'schemas' },
        // VS Code's own default: its welcome page opens as the workbench starts, as for a new user.
        userSettings: { 'workbench.startupEditor': 'welcomePage' },
        machineSettings: { 'workbench.welcomePage.walkthroughs.openOnInstall': true },
      });
    },
    { timeout: 240_000 },
  );
  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('(b) the first activation shows the Graph Planner walkthrough in front, and it stays there', scenarioTimeout, async () => {
    await scenarios.run('first-activation-b', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner activated', /Graph Planner activated in (\d+(?:\.\d+)?) ms/);
      scenarios.activation = 'ready';
      await waitFor(
        'the log to say the walkthrough opened',
        async () => {
          const log = await extensionLog(s);
          return /Getting Started opened on the first activation/.test(log) ? done(true) : pending(log.split('\n').slice(-5).join('\n'));
        },
        { timeoutMs: 90_000 },
      );
      await walkthroughTab(s.page).waitFor({ state: 'visible', timeout: 10_000 });
      // Long after the workbench started, the welcome page has not taken the editor back.
      await s.page.waitForTimeout(8_000);
      assert.ok(await walkthroughTab(s.page).isVisible(), `tabs: ${(await s.page.locator('.part.editor .tab').allTextContents()).join(', ')}`);
      assert.ok(await s.page.locator('.gettingStartedContainer').getByText('Get Started with Graph Planner').first().isVisible());
      await screenshotThemes(s, 'first-activation-b-opened');
    });
  });

  void it('(c) the next start of the same profile does not open it again', scenarioTimeout, async () => {
    await scenarios.run('first-activation-c', async (s) => {
      await runCommand(s.page, 'View: Close All Editors');
      await walkthroughTab(s.page).waitFor({ state: 'hidden', timeout: 30_000 });
      const activations = (await extensionLog(s)).match(/Graph Planner activated in/g)?.length ?? 0;
      await runCommand(s.page, 'Developer: Reload Window');
      await s.page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: 60_000 });
      await waitFor(
        'the extension to activate again',
        async () => {
          const now = (await extensionLog(s)).match(/Graph Planner activated in/g)?.length ?? 0;
          return now > activations ? done(now) : pending(`${now} activations`);
        },
        { timeoutMs: 90_000 },
      );
      // Longer than the walkthrough waits for the workbench to settle and then for itself to show.
      await s.page.waitForTimeout(12_000);
      const tabs = await s.page.locator('.part.editor .tab').allTextContents();
      assert.ok(!tabs.some((t) => t.includes('Walkthrough: Graph Planner')), `tabs: ${tabs.join(', ')}`);
      await screenshotThemes(s, 'first-activation-c-again');
    });
  });
});
