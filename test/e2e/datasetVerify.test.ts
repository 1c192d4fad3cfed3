/**
 * *Verify Tasks…* in real VS Code (code-server 4.100.3, the packaged `.vsix`, Debian's Chromium):
 * on `datasets/samples.jsonl` in the Tasks view, three picks start a real `gp dataset verify` on
 * the local backend (the sample repositories under `docker/samples/`, the gold patches beside the
 * dataset), detached, its log followed in a terminal; the Runs view lists the verification and
 * each task of the Tasks view shows its certification, with the verdict, the run and when in its
 * tooltip. The palette offers the command on the open dataset. Screenshots in the light and the
 * dark theme go to `test-artifacts/e2e/`.
 *
 * Run: `bash test/e2e/setup.sh && npm run package && node --import tsx --test test/e2e/datasetVerify.test.ts`.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { runStatusSchema } from '../../server/src/protocol/runs.js';
import { taskVerdictSchema } from '../../server/src/protocol/verify.js';
import { processAlive } from '../../server/src/util/processAlive.js';
import { startSession, stopSession, type Session } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import {
  chooseFromContextMenu,
  expandRow,
  formatRows,
  isTaskFileRow,
  rowLocator,
  taskFileRow,
  runRowLabel,
  showView,
  terminalText,
  viewPane,
  viewRows,
  waitForRow,
  widenSideBar,
} from './views.js';
import { done, pending, waitFor } from './wait.js';
import { openFile, runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 240_000 };
const scenarios = new Scenarios();
const sampleTasks = 7;

/** Verification run folders under the workspace's `outputs/`. */
function verifications(s: Session): string[] {
  const out = join(s.workspace, 'outputs');
  return existsSync(out)
    ? readdirSync(out)
        .filter((n) => n.includes('-verify-'))
        .sort()
    : [];
}

/** Clicks the row of the open quick pick whose label is `label` (its aria-label starts with it). */
async function chooseQuickPickRow(page: Page, what: string, label: string): Promise<void> {
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  const row = await waitFor(what, async () => {
    const labels = await rows.evaluateAll((els) =>
      els.map((e) => (e as unknown as { getAttribute(n: string): string | null }).getAttribute('aria-label') ?? ''),
    );
    const index = labels.findIndex((l) => l === label || l.startsWith(`${label},`) || l.startsWith(`${label} `));
    return index >= 0 ? done(index) : pending(`quick pick rows:\n${labels.join('\n') || '(none)'}`);
  });
  await rows.nth(row).click();
}

async function quickPickTitle(page: Page): Promise<string> {
  return waitFor('a quick pick with a title', async () => {
    const title = (await page.locator('.quick-input-widget .quick-input-title').textContent()) ?? '';
    return title.trim() !== '' ? done(title.trim()) : pending('(no title)');
  });
}

const themeOf = async (page: Page): Promise<'dark' | 'light'> =>
  ((await page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light';

/** Hovers a task's row until its tooltip shows the certification; returns the tooltip's text. */
async function hoverTask(page: Page, taskId: string): Promise<string> {
  return waitFor(
    `the tooltip of ${taskId} with its certification`,
    async () => {
      await page.mouse.move(900, 500);
      await rowLocator(page, 'Tasks', taskId).locator('.label-name').hover();
      const hover = page.locator('.workbench-hover').first();
      await hover.waitFor({ state: 'visible', timeout: 5_000 }).catch(() => undefined);
      const text = (await page.locator('.workbench-hover').allTextContents()).join(' ');
      return /Certification: certified/.test(text) ? done(text) : pending(text || '(no tooltip)');
    },
    { timeoutMs: 30_000 },
  );
}

void describe('Verify Tasks… in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({
        fixture: 'workbench',
        extraFiles: {
          'datasets/samples.jsonl': 'datasets/samples.jsonl',
          'datasets/gold_predictions_samples.jsonl': 'datasets/gold_predictions_samples.jsonl',
          'docker/samples': 'docker/samples',
        },
      });
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      // The verification is detached from the editor on purpose; the test ends it if it still runs.
      const s = scenarios.session;
      if (s !== undefined) {
        for (const run of verifications(s)) {
          try {
            const status = runStatusSchema.parse(JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'status.json'), 'utf8')));
            if (status.state === 'running' && processAlive(status.pid)) process.kill(status.pid, 'SIGKILL');
          } catch {
            // Not a run with a readable status; nothing to end.
          }
        }
      }
      await stopSession(s);
    },
    { timeout: 60_000 },
  );

  void it('(a) Verify Tasks… on samples.jsonl certifies its seven tasks, and the Tasks view shows each certification', scenarioTimeout, async () => {
    await scenarios.run('verify-a-tasks-view', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await s.page.locator('.part.activitybar .action-label[aria-label^="Graph Planner"]').click({ timeout: 30_000 });
      await showView(s.page, 'Tasks');
      await widenSideBar(s.page, 260);
      await waitForRow(
        s.page,
        'Tasks',
        'samples.jsonl with its seven tasks',
        (r) => isTaskFileRow(r, 'datasets/samples.jsonl') && /^7 tasks · datasets$/.test(r.description),
      );
      const files = (await viewRows(s.page, 'Tasks')).filter((r) => r.level === 1).map((r) => r.label);
      assert.ok(!files.some((f) => f.includes('gold_predictions')), `the gold patches are not listed as a dataset: ${files.join(', ')}`);

      await chooseFromContextMenu(s.page, 'Tasks', taskFileRow('datasets/samples.jsonl'), 'Verify Tasks…');
      assert.match(await quickPickTitle(s.page), /^Verify samples\.jsonl: runs per task \(1\/3\)$/);
      await chooseQuickPickRow(s.page, 'the runs-per-task pick', '2');
      await waitFor('the second pick', async () => ((await quickPickTitle(s.page)).includes('(2/3)') ? done(true) : pending(await quickPickTitle(s.page))));
      await chooseQuickPickRow(s.page, 'the tasks-at-once pick', '4');
      await waitFor('the third pick', async () => ((await quickPickTitle(s.page)).includes('(3/3)') ? done(true) : pending(await quickPickTitle(s.page))));
      await chooseQuickPickRow(s.page, 'the backend pick', 'local');

      const log = await waitFor(
        'the terminal to follow the verification to its end',
        async () => {
          const text = await terminalText(s.page);
          return /gp dataset verify ended/.test(text) ? done(text) : pending(text || '(nothing)');
        },
        { timeoutMs: 180_000 },
      );
      assert.match(log, /7 tasks verified \(7 certified\)/);

      const [run, ...others] = verifications(s);
      assert.ok(run !== undefined && others.length === 0, `one verification folder: ${verifications(s).join(', ')}`);
      const runLog = readFileSync(join(s.workspace, 'outputs', run, 'run.log'), 'utf8');
      assert.match(
        runLog,
        new RegExp(`^# gp dataset verify datasets/samples\\.jsonl --repeat 2 --parallel 4 --backend local --run-dir outputs/${run}$`, 'm'),
        runLog,
      );
      const verdicts = readFileSync(join(s.workspace, 'outputs', run, 'verdicts.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => taskVerdictSchema.parse(JSON.parse(l)));
      assert.equal(verdicts.length, sampleTasks);
      assert.ok(
        verdicts.every((v) => v.status === 'certified' && v.repeats === 2 && v.backend === 'local'),
        JSON.stringify(verdicts.map((v) => [v.task_id, v.status])),
      );
      await waitForRow(s.page, 'Runs', 'the verification in the Runs view', (r) => r.label === runRowLabel(run));

      await showView(s.page, 'Tasks');
      await expandRow(s.page, 'Tasks', taskFileRow('datasets/samples.jsonl'));
      const rows = await waitFor(
        'every sample task to show its certification',
        async () => {
          const all = await viewRows(s.page, 'Tasks');
          const tasks = all.filter((r) => r.level === 2 && r.label.startsWith('sample-') && all.some((f) => f.level === 1));
          const certified = tasks.filter((r) => r.description.startsWith('✓ certified · '));
          return certified.length >= sampleTasks ? done(all) : pending(formatRows(all));
        },
        { timeoutMs: 60_000 },
      );
      assert.ok(
        rows.some(
          (r) => r.label === 'sample-arith-operator' && r.description === '✓ certified · Invoice.total() is lower than the net amount when tax applies',
        ),
        formatRows(rows),
      );

      const tooltip = await hoverTask(s.page, 'sample-arith-operator');
      assert.match(tooltip, /Certification: certified — unresolved with no patch, fully resolved with its gold patch, in each of 2 runs/);
      assert.match(tooltip, new RegExp(`Verified \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC by outputs/${run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

      // The same moments in both themes, for a person to check both: the list as it reads, then a tooltip.
      const shoot = async (theme: string) => {
        await s.page.mouse.move(900, 300);
        await s.page
          .locator('.workbench-hover')
          .first()
          .waitFor({ state: 'hidden', timeout: 5_000 })
          .catch(() => undefined);
        await screenshot(s.page, `verify-a-tasks-view-${theme}`);
        await hoverTask(s.page, 'sample-arith-operator');
        await screenshot(s.page, `verify-a-tooltip-${theme}`);
      };
      const first = await themeOf(s.page);
      await shoot(first);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      const second = await waitFor('the other colour theme', async () => ((await themeOf(s.page)) !== first ? done(await themeOf(s.page)) : pending(first)));
      await shoot(second);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      await waitFor('the first colour theme again', async () => ((await themeOf(s.page)) === first ? done(true) : pending(second)));
    });
  });

  void it('(b) the palette offers Verify Tasks… on the open dataset', scenarioTimeout, async () => {
    await scenarios.run('verify-b-palette', async (s) => {
      await openFile(s.page, 'datasets/samples.jsonl');
      await runCommand(s.page, 'Graph Planner: Verify Tasks…');
      assert.match(await quickPickTitle(s.page), /^Verify samples\.jsonl: runs per task \(1\/3\)$/);
      await screenshot(s.page, 'verify-b-palette');
      await s.page.keyboard.press('Escape');
      await viewPane(s.page, 'Tasks').waitFor({ state: 'visible' });
    });
  });
});
