/**
 * What a config's checks show in real VS Code (code-server 4.100.3, the packaged `.vsix`, Debian's
 * Chromium), issue 37: a misspelt key (`planer_backend`) is an error in the Problems panel, not a
 * warning, and a launch of its config is blocked with a notice naming it and its did-you-mean fix,
 * whose Apply Fix button renames the key;
 * the experiment overview of the shipped sample config (rule agent, local backend) shows no GPU
 * layout and nothing preflight does not say. The workspace is `fixtures/workbench` plus the
 * shipped `configs/experiments/sample.yaml`. Each scenario saves
 * `checks-<scenario>-{light,dark,high-contrast}.png` to `test-artifacts/e2e/`.
 *
 * Run: `bash test/e2e/setup.sh && npm run build && npm run package && node --import tsx --test test/e2e/configChecks.test.ts`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { startSession, stopSession, type Session } from './harness.js';
import { runsNamed } from './runFolders.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { screenshotThemes } from './themes.js';
import { quickPickRows, waitForNotification } from './views.js';
import { done, pending, waitFor } from './wait.js';
import { filterProblems, focusProblems, formatProblems, openFile, runCommand, waitForEditorText, waitForProblems } from './workbench.js';

const scenarioTimeout = { timeout: 240_000 };
const diagnosticsTimeout = { timeoutMs: 60_000 };
const scenarios = new Scenarios();
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> =>
  scenarios.run(`checks-${name}`, async (s) => {
    if (scenarios.activation === 'ready') await runCommand(s.page, 'Notifications: Clear All Notifications');
    await body(s);
  });

const misspelt = 'configs/experiments/misspelt.yaml';
const shippedSample = 'configs/experiments/shipped_sample.yaml';

const overviewFrame = (s: Session): FrameLocator => s.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

void describe('A config’s checks in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({ fixture: 'workbench', extraFiles: { 'configs/experiments/sample.yaml': shippedSample } });
    },
    { timeout: 240_000 },
  );

  // No scenario starts a run (the one launch is blocked), so there is none to end.
  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('(a) a misspelt key is an error in the Problems panel and blocks a launch, naming the key and its did-you-mean fix', scenarioTimeout, async () => {
    await scenario('a-misspelt', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      writeFileSync(
        join(s.workspace, misspelt),
        '# The planner backend misspelt: without the error the run would keep its default backend.\nexperiment:\n  name: misspelt\npaths:\n  dataset_train: datasets/sample/tasks.jsonl\n  dataset_val: datasets/sample/tasks.jsonl\nbackends:\n  planer_backend: openai\nsandbox:\n  backend: local\nrollout:\n  agent: rule\n',
      );
      await openFile(s.page, misspelt);
      await focusProblems(s.page);
      await filterProblems(s.page, '**/misspelt.yaml');
      const problems = await waitForProblems(
        s.page,
        'the unknown-key problem of misspelt.yaml',
        (ps) => ps.some((p) => p.file === 'misspelt.yaml' && p.code === 'schema/unknown-key'),
        diagnosticsTimeout,
      );
      const seen = formatProblems(problems);
      const unknown = problems.find((p) => p.file === 'misspelt.yaml' && p.code === 'schema/unknown-key');
      assert.equal(unknown?.severity, 'error', seen);
      assert.equal(unknown?.line, 8, `planer_backend is on line 8:\n${seen}`);
      assert.match(unknown?.message ?? '', /Unknown key 'planer_backend' in backends\. Did you mean 'planner_backend'\?/, seen);
      await screenshotThemes(s, 'checks-a-problems');

      await runCommand(s.page, 'Graph Planner: Start Rollout');
      const rows = await waitFor(
        'the review list with the unknown key first',
        async () => {
          const r = await quickPickRows(s.page);
          return r.some((row) => /blocked by an error/.test(row)) ? done(r) : pending(`quick pick rows:\n${r.join('\n') || '(none)'}`);
        },
        diagnosticsTimeout,
      );
      assert.match(rows[0] ?? '', /Unknown key 'planer_backend'/, rows.join('\n'));
      const start = rows.findIndex((r) => /Start rollout.*blocked by an error/.test(r));
      for (let i = 0; i < start; i++) await s.page.keyboard.press('ArrowDown');
      await s.page.keyboard.press('Enter');
      const blocked =
        /Launch blocked: the config has an error\. First \(configs\/experiments\/misspelt\.yaml:8:\d+\): schema\/unknown-key: Unknown key 'planer_backend' in backends\. Did you mean 'planner_backend'\?/;
      await waitForNotification(s.page, 'the blocked launch to name the unknown key and its fix', blocked);
      assert.deepEqual(runsNamed(s, 'misspelt'), [], 'no run folder was made');
      await screenshotThemes(s, 'checks-a-blocked');
      // The notice offers the editor's preferred fix; choosing it renames the key in the editor.
      const fix = s.page
        .locator('.notifications-toasts .notification-toast')
        .filter({ has: s.page.locator('.notification-list-item-message', { hasText: /Launch blocked/ }) })
        .first()
        .locator('.notification-list-item-buttons-container .monaco-button', { hasText: /^Apply Fix$/ });
      await fix.first().click({ timeout: 20_000 });
      await waitForEditorText(s.page, 'the fix to rename planer_backend', (t) => /\n\s*planner_backend: openai/.test(t) && !t.includes('planer_backend'));
      await screenshotThemes(s, 'checks-a-fixed');
    });
  });

  void it('(b) the overview of the shipped sample config has no GPU layout and no finding preflight does not give', scenarioTimeout, async () => {
    await scenario('b-overview', async (s) => {
      await openFile(s.page, shippedSample);
      if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
      await runCommand(s.page, 'Graph Planner: Show Experiment Overview');
      const frame = overviewFrame(s);
      const text = await waitFor(
        'the overview of the sample config with its Verl settings',
        async () => {
          const root = frame.locator('#root');
          const t = (await root.count()) === 0 ? '' : ((await root.textContent({ timeout: 2_000 })) ?? '');
          return t.includes('Verl settings') && t.includes('Preflight') ? done(t) : pending(`page: ${t.slice(0, 300) || '(empty)'}`);
        },
        diagnosticsTimeout,
      );
      assert.equal(await frame.locator('#gpu-heading').count(), 0, `no GPU layout for the rule agent on the local backend: ${text.slice(0, 600)}`);
      assert.doesNotMatch(text, /do not fit|GPU layout|tensor parallel/);
      assert.match(text, /No findings/);
      assert.equal(await frame.locator('.shared-note, .short, .finding').count(), 0, 'nothing orange or red');
      assert.equal(await frame.locator('[data-key="paths.planner_model"]').count(), 0, 'no default planner model for a config that loads none');
      assert.doesNotMatch(text, /Qwen3-14B/);
      await screenshotThemes(s, 'checks-b-overview');
    });
  });
});
