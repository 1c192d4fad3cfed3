/**
 * Feedback around a launch in real VS Code (code-server 4.100.3, the packaged `.vsix`, Debian's
 * Chromium), issue 27: a launch that succeeds and one that fails each end with a notice and its
 * buttons (Open Report opens the report, Show Log the log); a live run shows in the status bar and
 * as a badge on the Runs view; a config with errors shows them first in the review list, with the
 * values as written, and its blocked start names the first error with a button to it; the review
 * list and the Tasks view name a task that cannot run here; a launch whose every task line fails
 * validation, whose process exits before its run reports, ends at once in a failed notice with the
 * first error, Show Log and Go to Error, and a failed row in the Runs view (issue 37). The workspace is `fixtures/workbench`
 * plus the sample repository, so the sample tasks run on the local backend in seconds. Each
 * scenario saves `launch-<scenario>-{light,dark,high-contrast}.png` to `test-artifacts/e2e/`.
 *
 * Run: `bash test/e2e/setup.sh && npm run build && npm run package && node --import tsx --test test/e2e/launchFeedback.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSession, stopSession, type Session } from './harness.js';
import { endLiveRuns, runsNamed, statusOf } from './runFolders.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { currentTheme, screenshotThemes, setTheme, type ThemeKind } from './themes.js';
import {
  acceptQuickPick,
  clickInlineAction,
  clickTitleAction,
  expandRow,
  isTaskFileRow,
  quickPickRows,
  runRowLabel,
  showView,
  taskFileRow,
  viewRows,
  waitForNotification,
  waitForRow,
  widenSideBar,
} from './views.js';
import { done, pending, waitFor } from './wait.js';
import { cursorPosition, openFile, runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 240_000 };
const scenarios = new Scenarios();
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> =>
  scenarios.run(`launch-${name}`, async (s) => {
    if (scenarios.activation === 'ready') await runCommand(s.page, 'Notifications: Clear All Notifications');
    await body(s);
  });

/** `text` matched literally in a regular expression. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The toast whose message matches `pattern`. */
function toast(page: Page, pattern: RegExp) {
  return page
    .locator('.notifications-toasts .notification-toast')
    .filter({ has: page.locator('.notification-list-item-message', { hasText: pattern }) })
    .first();
}

/** The button labels of the toast whose message matches `pattern`. */
async function toastButtons(page: Page, pattern: RegExp): Promise<string[]> {
  return (await toast(page, pattern).locator('.notification-list-item-buttons-container .monaco-button').allTextContents()).map((t) => t.trim());
}

async function clickToastButton(page: Page, pattern: RegExp, label: string): Promise<void> {
  await toast(page, pattern).locator('.notification-list-item-buttons-container .monaco-button', { hasText: label }).first().click({ timeout: 10_000 });
}

async function activeTab(page: Page): Promise<string> {
  return ((await page.locator('.part.editor .tab.active').first().textContent()) ?? '').trim();
}

/** The rows of the open quick pick, waited for until `accept` passes. */
async function waitForQuickPick(page: Page, what: string, accept: (rows: string[]) => boolean): Promise<string[]> {
  return waitFor(what, async () => {
    const rows = await quickPickRows(page);
    return accept(rows) ? done(rows) : pending(`quick pick rows:\n${rows.join('\n') || '(none)'}`);
  });
}

/**
 * Screenshots of a quick pick in each theme. The theme picker is a quick input too and would close
 * the list, so the theme is set first and the list opened again in each (`open` opens it and waits).
 */
async function screenshotQuickPickThemes(s: Session, name: string, open: () => Promise<unknown>): Promise<void> {
  const before = await currentTheme(s.page);
  for (const kind of ['light', 'dark', 'high-contrast'] as const satisfies readonly ThemeKind[]) {
    await setTheme(s, kind);
    await open();
    await screenshot(s.page, `${name}-${kind}`);
    await s.page.keyboard.press('Escape');
  }
  if (before !== 'other') await setTheme(s, before);
}

/** A SWE-bench row with no local_repo, and an experiment that runs it on the local backend: it cannot run. */
function writeUnrunnable(s: Session): void {
  mkdirSync(join(s.workspace, 'datasets', 'swe'), { recursive: true });
  const row = {
    task_id: 'django__django-11099',
    repo: 'django/django',
    sandbox: { docker_image: 'sweb.eval.x86_64.django__django-11099:latest', workdir: '/testbed', test_command: 'pytest' },
    issue: {
      body: 'UsernameValidator allows trailing newline in usernames\n\nDescription: ASCIIUsernameValidator and UnicodeUsernameValidator use the regex r"^[\\w.@+-]+$"',
    },
    FAIL_TO_PASS: ['tests/auth_tests/test_validators.py::test_trailing_newline'],
    PASS_TO_PASS: [],
  };
  writeFileSync(join(s.workspace, 'datasets', 'swe', 'tasks.jsonl'), `${JSON.stringify(row)}\n`);
  writeFileSync(
    join(s.workspace, 'configs', 'experiments', 'swe-local.yaml'),
    '# A SWE-bench task without local_repo on the local backend: it fails at once.\nexperiment:\n  name: swe-local\npaths:\n  dataset_train: datasets/swe/tasks.jsonl\n  dataset_val: datasets/swe/tasks.jsonl\nsandbox:\n  backend: local\nrollout:\n  agent: rule\n',
  );
}

void describe('Feedback around a launch in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({ fixture: 'workbench', extraFiles: { 'docker/repoenv_sample/sample_repo': 'repos/sample_repo' } });
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      // Runs are detached from the editor on purpose; the test ends any it left running.
      endLiveRuns(scenarios.session);
      await stopSession(scenarios.session);
    },
    { timeout: 60_000 },
  );

  void it('(a) a rollout that succeeds ends with a notice of its outcome and its buttons; Open Report opens the report', scenarioTimeout, async () => {
    await scenario('a-finished', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await openFile(s.page, 'configs/experiments/sample.yaml');
      await runCommand(s.page, 'Graph Planner: Start Rollout');
      await acceptQuickPick(s.page, 'the review list to offer "Start rollout" first', (first) => /Start rollout/.test(first));
      const notice = /Rollout sample \S+ finished: \d of 3 resolved/;
      const text = await waitForNotification(s.page, 'the notice that the rollout finished', notice, { timeoutMs: 120_000 });
      const run = runsNamed(s, 'sample-rollout').at(-1) ?? '';
      const report = JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'report.json'), 'utf8')) as { resolved: number };
      // The run's one name (issue 37): the Runs view's label, after its kind.
      assert.equal(text, `Rollout ${runRowLabel(run)} finished: ${report.resolved} of 3 resolved`, 'the notice gives the report’s own count');
      assert.deepEqual(await toastButtons(s.page, notice), ['Open Report', 'Show Log', 'Re-launch']);
      assert.ok(!(await s.page.locator('.notification-list-item-message', { hasText: /^Started gp / }).count()), 'no raw command-line toast');
      await widenSideBar(s.page, 200).catch(() => undefined);
      await screenshotThemes(s, 'launch-a-finished');
      await clickToastButton(s.page, notice, 'Open Report');
      await waitFor('the report in the active editor tab', async () => {
        const tab = await activeTab(s.page);
        return /report/i.test(tab) ? done(tab) : pending(`active tab: ${tab || '(none)'}`);
      });
    });
  });

  void it('(b) a live run shows in the status bar and as a badge on the Runs view; stopped, it ends with a notice', scenarioTimeout, async () => {
    await scenario('b-live', async (s) => {
      await openFile(s.page, 'configs/experiments/long.yaml');
      await runCommand(s.page, 'Graph Planner: Start Rollout');
      await acceptQuickPick(s.page, 'the review list to offer "Start rollout" first', (first) => /Start rollout/.test(first));
      const item = s.page.locator('.part.statusbar .statusbar-item', { hasText: /^\s*1 run\s*$/ }).first();
      await item.waitFor({ state: 'visible', timeout: 60_000 });
      const badge = s.page
        .locator('.part.activitybar .action-item', { has: s.page.locator('.action-label[aria-label^="Graph Planner"]') })
        .locator('.badge-content');
      await waitFor('the activity bar badge to count one run', async () => {
        const text = ((await badge.textContent().catch(() => null)) ?? '').trim();
        return text === '1' ? done(text) : pending(`badge "${text}"`);
      });
      const run = runsNamed(s, 'long-rollout').at(-1) ?? '';
      // The progress notification stayed until the run reported that it runs (launchProgress.ts logs how it ended).
      await loggedMs(
        s,
        'the launch progress to end on the running run',
        new RegExp(`Launch progress: Rollout ${escaped(runRowLabel(run))} running after (\\d+) ms`),
      );
      await showView(s.page, 'Runs');
      await waitForRow(s.page, 'Runs', `${run} running`, (r) => r.label === runRowLabel(run) && /(^| · )running\b/.test(r.description));
      await screenshotThemes(s, 'launch-b-live');
      // A row redrawn as an episode ends can swallow the click: click until the stop is acknowledged.
      await waitFor(
        'Stop Run to be acknowledged',
        async () => {
          await clickInlineAction(s.page, 'Runs', runRowLabel(run), 'Stop Run').catch(() => undefined);
          const sent = await waitForNotification(s.page, 'the stop to be sent', new RegExp(`Sent Ctrl-C to ${run}`), { timeoutMs: 10_000 }).catch(
            () => undefined,
          );
          return sent !== undefined ? done(sent) : pending(`no answer to Stop Run yet; the run is ${statusOf(s, run).state}`);
        },
        { timeoutMs: 40_000 },
      );
      const notice = new RegExp(`Rollout ${escaped(runRowLabel(run))} was interrupted after \\d+ of 45 episodes`);
      await waitForNotification(s.page, 'the notice that the run was interrupted', notice, { timeoutMs: 60_000 });
      assert.ok((await toastButtons(s.page, notice)).includes('Show Log'));
      await item.waitFor({ state: 'hidden', timeout: 30_000 });
    });
  });

  void it(
    '(c) a task that cannot run on the local backend is named in the review list and the Tasks view; launched anyway, the run fails with a notice whose Show Log opens its log',
    scenarioTimeout,
    async () => {
      await scenario('c-failed', async (s) => {
        // Run on its own (--test-name-pattern), this is the first scenario: the views come with the server.
        await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
        writeUnrunnable(s);
        await showView(s.page, 'Tasks');
        // A folder made while the editor runs may reach the file watcher late; a person would refresh.
        await clickTitleAction(s.page, 'Tasks', 'Refresh Tasks');
        await waitForRow(s.page, 'Tasks', 'the SWE-bench file', (r) => isTaskFileRow(r, 'datasets/swe/tasks.jsonl'), { timeoutMs: 60_000 });
        await expandRow(s.page, 'Tasks', taskFileRow('datasets/swe/tasks.jsonl'));
        await expandRow(s.page, 'Tasks', taskFileRow('datasets/sample/tasks.jsonl')).catch(() => undefined);
        const swe = await waitForRow(
          s.page,
          'Tasks',
          'the task that cannot run, with its title',
          (r) =>
            r.label === 'django__django-11099' &&
            /^(no Docker engine|image not on this engine) · UsernameValidator allows trailing newline in usernames$/.test(r.description),
        );
        assert.ok(!swe.description.includes('sweb.eval'), 'the image is not repeated in the row');
        await waitForRow(
          s.page,
          'Tasks',
          'a sample task with its issue title',
          (r) => r.label === 'sample-calc-add' && r.description === 'calc.add returns the wrong result',
        );
        await widenSideBar(s.page, 200).catch(() => undefined);
        await screenshotThemes(s, 'launch-c-tasks');

        await openFile(s.page, 'configs/experiments/swe-local.yaml');
        const openReview = async () => {
          await runCommand(s.page, 'Graph Planner: Start Rollout');
          return waitForQuickPick(s.page, 'the review list with the preflight row', (r) => r.some((row) => /1 of 1 task cannot run on local/.test(row)));
        };
        await screenshotQuickPickThemes(s, 'launch-c-review', openReview);
        const rows = await openReview();
        assert.match(rows[0] ?? '', /Start rollout/);
        assert.match(rows[1] ?? '', /1 of 1 task cannot run on local/);
        assert.match(rows[1] ?? '', /django__django-11099/);
        await s.page.keyboard.press('Enter');
        const notice =
          /Rollout swe-local \S+ failed after 1 of 1 episode: every episode ended with an error \(first: Task django__django-11099 has no local_repo/;
        await waitForNotification(s.page, 'the notice that the run failed', notice, { timeoutMs: 120_000 });
        assert.deepEqual(await toastButtons(s.page, notice), ['Open Report', 'Show Log', 'Re-launch', 'Show Problems']);
        await screenshotThemes(s, 'launch-c-failed');
        await clickToastButton(s.page, notice, 'Show Log');
        await waitFor('the run log in the active editor tab', async () => {
          const tab = await activeTab(s.page);
          return tab.startsWith('run.log') ? done(tab) : pending(`active tab: ${tab || '(none)'}`);
        });
      });
    },
  );

  void it(
    '(d) a config with errors shows them first with its values as written; the blocked start names the first error and its button goes there',
    scenarioTimeout,
    async () => {
      await scenario('d-blocked', async (s) => {
        writeFileSync(
          join(s.workspace, 'configs', 'experiments', 'dockr.yaml'),
          '# Two errors on purpose: a misspelt backend and no episodes at once.\nexperiment:\n  name: dockr\npaths:\n  dataset_train: datasets/sample/tasks.jsonl\nsandbox:\n  backend: dockr\nrollout:\n  agent: rule\n  parallel: 0\n',
        );
        await openFile(s.page, 'configs/experiments/dockr.yaml');
        const openReview = async () => {
          await runCommand(s.page, 'Graph Planner: Start Rollout');
          return waitForQuickPick(s.page, 'the review list with the errors first', (r) => r.some((row) => /Backend/.test(row)));
        };
        await screenshotQuickPickThemes(s, 'launch-d-review', openReview);
        const rows = await openReview();
        assert.match(rows[0] ?? '', /sandbox\.backend must be one of "auto", "docker", "local", not 'dockr'/);
        assert.match(rows[1] ?? '', /rollout\.parallel is 0/);
        assert.match(rows[2] ?? '', /Start rollout.*blocked by 2 errors/);
        assert.ok(
          rows.some((r) => /Backend.*dockr \(from the config\)/.test(r)),
          `the backend as written:\n${rows.join('\n')}`,
        );
        assert.ok(
          rows.some((r) => /Parallel episodes.*0 \(from the config\)/.test(r)),
          `parallel as written:\n${rows.join('\n')}`,
        );
        // The start row is the third: choose it.
        await s.page.keyboard.press('ArrowDown');
        await s.page.keyboard.press('ArrowDown');
        await s.page.keyboard.press('Enter');
        const blocked =
          /Launch blocked: the config has 2 errors\. First \(configs\/experiments\/dockr\.yaml:7:\d+\): schema\/enum: sandbox\.backend must be one of "auto", "docker", "local", not 'dockr'\. Did you mean 'docker'\?/;
        await waitForNotification(s.page, 'the blocked launch to name the first error in full', blocked);
        // The misspelt enum value has a preferred fix (set it to 'docker'), which the notice offers first.
        assert.deepEqual(await toastButtons(s.page, blocked), ['Apply Fix', 'Go to Error', 'Show Problems']);
        assert.deepEqual(runsNamed(s, 'dockr'), [], 'no run folder was made');
        await screenshotThemes(s, 'launch-d-blocked');
        await openFile(s.page, 'configs/experiments/sample.yaml');
        await clickToastButton(s.page, blocked, 'Go to Error');
        await waitFor('the cursor at the misspelt backend', async () => {
          const tab = await activeTab(s.page);
          const at = await cursorPosition(s.page);
          return tab.startsWith('dockr.yaml') && at?.line === 7 ? done(at) : pending(`tab ${tab}, cursor ${JSON.stringify(at)}`);
        });
      });
    },
  );

  void it(
    '(e) a launch whose every task line fails validation ends at once in a failed notice with the first error; Go to Error opens its line, and the Runs view lists the failed attempt (issue 37)',
    scenarioTimeout,
    async () => {
      await scenario('e-died', async (s) => {
        // Run on its own (--test-name-pattern), this is the first scenario: the views come with the server.
        await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
        mkdirSync(join(s.workspace, 'datasets', 'bad'), { recursive: true });
        // Line 1's task_id is a number, line 2 has none: no line is a task, so gp exits before its run reports.
        writeFileSync(join(s.workspace, 'datasets', 'bad', 'tasks.jsonl'), '{"task_id": 5, "repo": "x"}\n{"repo": "y"}\n');
        writeFileSync(
          join(s.workspace, 'configs', 'experiments', 'badtasks.yaml'),
          '# Its dataset has no valid line.\nexperiment:\n  name: badtasks\npaths:\n  dataset_train: datasets/bad/tasks.jsonl\n  dataset_val: datasets/bad/tasks.jsonl\nsandbox:\n  backend: local\nrollout:\n  agent: rule\n',
        );
        await openFile(s.page, 'configs/experiments/badtasks.yaml');
        await runCommand(s.page, 'Graph Planner: Start Rollout');
        await acceptQuickPick(s.page, 'the review list to offer "Start rollout" first', (first) => /Start rollout/.test(first));
        const notice = /Rollout badtasks \S+ failed before it started: datasets\/bad\/tasks\.jsonl:1:1 task_id: /;
        await waitForNotification(s.page, 'the failed notice with the first error', notice, { timeoutMs: 60_000 });
        const run = runsNamed(s, 'badtasks-rollout').at(-1) ?? '';
        assert.equal(statusOf(s, run).state, 'failed', 'the failure is recorded in the run folder');
        // How long from the process's exit to the notice, as the output channel records both.
        await loggedMs(
          s,
          'the exit to reach the window',
          new RegExp(`Launch in \\S+${escaped(run)} exited with status 2 \\(before its run reported\\), (\\d+) ms ago`),
        );
        assert.deepEqual(await toastButtons(s.page, notice), ['Go to Error', 'Show Log']);
        await showView(s.page, 'Runs');
        await widenSideBar(s.page, 200).catch(() => undefined);
        const row = await waitForRow(
          s.page,
          'Runs',
          `${run} failed in the Runs view`,
          (r) => r.label === runRowLabel(run) && r.description.startsWith('failed'),
        );
        assert.match(row.description, /rollout/);
        // Where its episodes would be, the run says why it has none.
        const why = (r: { level: number; label: string }) =>
          r.level === 2 && /^It ended before any episode started: datasets\/bad\/tasks\.jsonl:1:1/.test(r.label);
        if (!(await viewRows(s.page, 'Runs')).some(why)) await expandRow(s.page, 'Runs', runRowLabel(run));
        await waitForRow(s.page, 'Runs', `${run}'s reason in place of its episodes`, why);
        await screenshotThemes(s, 'launch-e-died');
        await clickToastButton(s.page, notice, 'Go to Error');
        await waitFor('the cursor on the first bad line of the task file', async () => {
          const tab = await activeTab(s.page);
          const at = await cursorPosition(s.page);
          return tab.startsWith('tasks.jsonl') && at?.line === 1 ? done(at) : pending(`tab ${tab}, cursor ${JSON.stringify(at)}`);
        });
      });
    },
  );
});
