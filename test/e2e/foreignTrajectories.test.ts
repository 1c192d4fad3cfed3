/**
 * Other tools' trajectories in the trajectory viewer, in real VS Code (code-server + Chromium), on
 * the real files of test/fixtures/formats: (a) an ATIF file (`*.atif.json`) opens in the viewer from
 * Quick Open, with its format in the header, what ATIF does not record said quietly, and a step's
 * tool calls and observations; (b) an ATIF file that breaks its format's rules is still shown, the
 * problem located at its line and column and its step marked; (c) a SWE-agent `.traj` steps with the
 * keyboard and searches like our own episodes, its submission in the header; (d) an ATIF file under
 * the name Harbor gives it (`trajectory.json`, no viewer by default) opens as text and then in the
 * viewer through "Graph Planner: Open Trajectory…"; (e) an ATIF file named `run.json` opened as text
 * gets a notice offering the viewer (ordinary JSON none), whose button opens it there; (f) an
 * Inspect AI `.eval` log (Inspect's own, zstd inside) opens at its first sample with its score, and
 * the sample picker shows another. Screenshots of (a), (c) and (f) in both themes, (e)'s notice and
 * viewer in light, dark and high contrast.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { repoRoot, startSession, stopSession, type Session } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { screenshotThemes, setTheme } from './themes.js';
import { acceptQuickPick, notifications, waitForNotification } from './views.js';
import { done, pending, waitFor } from './wait.js';
import { openFile, runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 180_000 };
const scenarios = new Scenarios();
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> =>
  scenarios.run(`formats-${name}`, async (s) => {
    if (scenarios.activation === 'ready') await runCommand(s.page, 'View: Close All Editors');
    await body(s);
  });

const visibleWebview = (page: Page): FrameLocator => page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');

/** Quick Open on a workspace path, accepting the row of that file. */
async function quickOpen(page: Page, path: string): Promise<void> {
  await page.keyboard.press('Control+P');
  await page.keyboard.type(path);
  const name = path.split('/').pop() ?? path;
  await acceptQuickPick(page, `${path} in Quick Open`, (first) => first.includes(name));
}

async function rowCount(frame: FrameLocator): Promise<number> {
  return frame
    .locator('#step-list .step:not([hidden])')
    .count()
    .catch(() => 0);
}

async function text(frame: FrameLocator, selector: string): Promise<string> {
  return (
    (await frame
      .locator(selector)
      .first()
      .textContent()
      .catch(() => null)) ?? ''
  );
}

/** The same moment in both themes, each screenshot named for the theme it shows. */
async function bothThemes(s: Session, name: string): Promise<void> {
  const themeOf = async () => (((await s.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light');
  const first = await themeOf();
  await screenshot(s.page, `${name}-${first}`);
  await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
  const second = await waitFor('the other colour theme', async () => ((await themeOf()) !== first ? done(await themeOf()) : pending(first)));
  // The webview takes the new theme's colours a moment after the workbench.
  await s.page.waitForTimeout(500);
  await screenshot(s.page, `${name}-${second}`);
  await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
  await waitFor('the first colour theme again', async () => ((await themeOf()) === first ? done(true) : pending(second)));
}

void describe('Other tools\u2019 trajectories in the viewer (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({
        fixture: 'workbench',
        extraFiles: {
          'test/fixtures/formats/atif/letta-tool-calls.v1.7.json': 'others/letta-tool-calls.atif.json',
          'test/fixtures/formats/atif/letta-cleanup.v1.7.invalid-arguments.json': 'others/letta-cleanup.atif.json',
          'test/fixtures/formats/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj': 'others/6e44b9__sweagenttestrepo-1c2844.traj',
          'test/fixtures/formats/inspect/tiny.eval': 'others/logs/tiny.eval',
        },
      });
      // The name Harbor gives an ATIF file, which no viewer claims by default.
      const plain = join(scenarios.session.workspace, 'others/plain');
      mkdirSync(plain, { recursive: true });
      copyFileSync(join(repoRoot, 'test/fixtures/formats/atif/letta-tool-calls.v1.7.json'), join(plain, 'trajectory.json'));
      copyFileSync(join(repoRoot, 'test/fixtures/formats/atif/letta-tool-calls.v1.7.json'), join(plain, 'run.json'));
      // Ordinary JSON that names a trajectory's words, in no trajectory's shape.
      writeFileSync(join(plain, 'ordinary.json'), `${JSON.stringify({ name: 'settings', steps: [1, 2], agent: 'none', trajectory: 'off' }, null, 2)}\n`);
    },
    { timeout: 300_000 },
  );

  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('(a) an ATIF file opens in the viewer with its format, what ATIF lacks, and its tool calls', scenarioTimeout, async () => {
    await scenario('a-atif', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await quickOpen(s.page, 'others/letta-tool-calls.atif.json');
      const frame = visibleWebview(s.page);
      await waitFor('the ATIF episode in the viewer', async () => {
        const rows = await rowCount(frame);
        const state = await text(frame, '#episode-state');
        return rows === 3 && state === 'ATIF-v1.7' ? done(true) : pending(`${rows} rows, state "${state}"`);
      });
      const note = await text(frame, '#format-lacks summary');
      assert.match(note, /^Read-only, from ATIF-v1\.7\. Not recorded: rewards · outcome · step durations$/);
      assert.equal(await frame.locator('#compare').count(), 0, 'no Compare for a file that is not one of our runs');
      assert.equal(await frame.locator('#step-list .step').first().locator('.reward').textContent(), '—', 'no reward is shown as a dash, not a zero');
      await frame.locator('#step-list .step[data-step="2"]').click();
      await waitFor('step 2 with its two tool calls', async () => {
        const detail = await text(frame, '#detail');
        return /Tool calls \(2\)/.test(detail) && /find \. -maxdepth 1 -type f/.test(detail) && /Observations \(2\)/.test(detail)
          ? done(true)
          : pending(detail.slice(0, 200));
      });
      const detail = await text(frame, '#detail');
      assert.match(detail, /Reasoning/);
      assert.match(detail, /Subagent trajectory: subagents\/config\.json/);
      await bothThemes(s, 'formats-a-atif');
    });
  });

  void it('(b) an ATIF file that breaks its rules is shown, the problem at its line and column, its step marked', scenarioTimeout, async () => {
    await scenario('b-atif-invalid', async (s) => {
      await quickOpen(s.page, 'others/letta-cleanup.atif.json');
      const frame = visibleWebview(s.page);
      await waitFor('the invalid ATIF episode', async () => ((await rowCount(frame)) === 4 ? done(true) : pending(`${await rowCount(frame)} rows`)));
      assert.match(await text(frame, '#file-problems summary'), /^1 place in the file breaks the ATIF-v1\.7 rules; what could be read is shown$/);
      await frame.locator('#file-problems summary').click();
      assert.match(await text(frame, '#file-problems'), /steps\[2\]\.tool_calls\[0\]\.arguments \(line 30, column 11\)/);
      await frame.locator('#step-list .step[data-step="3"]').click();
      await waitFor('step 3 with its problem and its arguments as the file has them', async () => {
        const detail = await text(frame, '#detail');
        return /breaks its format’s rules/.test(detail) && /\[\s*"fast"\s*\]/.test(detail) ? done(true) : pending(detail.slice(0, 200));
      });
      assert.equal(await frame.locator('#step-list .step[data-step="3"] .marker.error').count(), 1);
      await screenshot(s.page, 'formats-b-atif-invalid');
    });
  });

  void it('(c) a SWE-agent trajectory steps with the keyboard and searches like our own episodes', scenarioTimeout, async () => {
    await scenario('c-swe-agent', async (s) => {
      await quickOpen(s.page, 'others/6e44b9__sweagenttestrepo-1c2844.traj');
      const frame = visibleWebview(s.page);
      await waitFor('the SWE-agent episode', async () => ((await rowCount(frame)) === 7 ? done(true) : pending(`${await rowCount(frame)} rows`)));
      assert.match(await text(frame, '#episode-facts'), /exit status: submitted · cost \$0\.0195/);
      assert.equal(await frame.locator('#submission').count(), 1, 'the submitted patch is in the header');
      await frame.locator('#step-list .step[data-step="3"]').click();
      await frame.locator('#step-list').focus();
      await s.page.keyboard.press('j');
      await waitFor('step 4 selected by j', async () => {
        const title = await text(frame, '#step-title');
        return title.startsWith('Step 4 · agent') ? done(true) : pending(title);
      });
      assert.match(await text(frame, '#detail'), /State after the step/);
      await frame.locator('#search').fill('Replaced 1 occurrences');
      await waitFor('the search to find the edit\u2019s output', async () => {
        const status = await text(frame, '#search-status');
        return /in 1 step/.test(status) ? done(true) : pending(status);
      });
      await waitFor('the matching step selected', async () =>
        (await text(frame, '#step-title')).startsWith('Step 5 ') ? done(true) : pending(await text(frame, '#step-title')),
      );
      await bothThemes(s, 'formats-c-swe-agent');
    });
  });

  void it('(d) a JSON file open as text opens in the viewer through "Open Trajectory…"', scenarioTimeout, async () => {
    await scenario('d-open-as', async (s) => {
      await openFile(s.page, 'others/plain/trajectory.json');
      await runCommand(s.page, 'Graph Planner: Open Trajectory…');
      const frame = visibleWebview(s.page);
      await waitFor('the viewer of trajectory.json', async () =>
        (await text(frame, '#episode-state')) === 'ATIF-v1.7' ? done(true) : pending(await text(frame, '#episode-state')),
      );
      await screenshot(s.page, 'formats-d-open-as');
    });
  });

  void it('(e) an ATIF file named .json opened as text offers the viewer, and the offer opens it; ordinary JSON gets none', scenarioTimeout, async () => {
    await scenario('e-prompt', async (s) => {
      await runCommand(s.page, 'Notifications: Clear All Notifications');
      await openFile(s.page, 'others/plain/ordinary.json');
      await openFile(s.page, 'others/plain/run.json');
      const offer = /^run\.json looks like an ATIF trajectory\. The Trajectory Viewer shows it step by step\.$/;
      await waitForNotification(s.page, 'the offer to open run.json in the viewer', offer);
      assert.ok(!(await notifications(s.page)).some((t) => /ordinary\.json looks like/.test(t)), 'ordinary JSON gets no offer');
      const toast = s.page
        .locator('.notifications-toasts .notification-toast')
        .filter({ has: s.page.locator('.notification-list-item-message', { hasText: offer }) })
        .first();
      const buttons = (await toast.locator('.notification-list-item-buttons-container .monaco-button').allTextContents()).map((t) => t.trim());
      assert.deepEqual(buttons, ['Open in Trajectory Viewer', "Don't Ask Again"]);
      // A toast hides after a while; each theme's picture shows it in the notification centre if it has.
      for (const kind of ['light', 'dark', 'high-contrast'] as const) {
        await setTheme(s, kind);
        if (!(await toast.isVisible())) await runCommand(s.page, 'Notifications: Show Notifications');
        await screenshot(s.page, `formats-e-prompt-${kind}`);
      }
      const open = s.page
        .locator('.notification-list-item', { hasText: 'run.json looks like an ATIF trajectory' })
        .locator('.monaco-button', { hasText: 'Open in Trajectory Viewer' })
        .first();
      if (!(await open.isVisible())) await runCommand(s.page, 'Notifications: Show Notifications');
      await open.click({ timeout: 10_000 });
      const frame = visibleWebview(s.page);
      await waitFor('the viewer of run.json', async () =>
        (await text(frame, '#episode-state')) === 'ATIF-v1.7' ? done(true) : pending(await text(frame, '#episode-state')),
      );
      const tabs = (await s.page.locator('.part.editor .tab').allTextContents()).filter((t) => t.includes('run.json'));
      assert.equal(tabs.length, 1, `the viewer took the text editor's place: ${tabs.join(' | ')}`);
      await screenshotThemes(s, 'formats-e-prompt-viewer');
    });
  });

  void it('(f) an Inspect AI .eval log opens at its first sample with its score, and the sample picker shows another', scenarioTimeout, async () => {
    await scenario('f-inspect', async (s) => {
      await quickOpen(s.page, 'others/logs/tiny.eval');
      const frame = visibleWebview(s.page);
      await waitFor('the first sample of the Inspect log in the viewer', async () => {
        const rows = await rowCount(frame);
        const state = await text(frame, '#episode-state');
        return rows === 3 && state === 'Inspect AI log v2 (.eval)' ? done(true) : pending(`${rows} rows, state "${state}"`);
      });
      assert.match(await text(frame, '#episode-facts'), /score includes: C \(The answer is 2\.\)/);
      assert.match(
        await text(frame, '#format-lacks summary'),
        /^Read-only, from Inspect AI log v2 \(\.eval\)\. Not recorded: per-step rewards · step durations$/,
      );
      const picker = frame.locator('#sample-picker');
      assert.deepEqual(await picker.locator('option').allTextContents(), ['add-one-and-one · epoch 1 · C', 'say-hello · epoch 1 · I']);
      await frame.locator('#step-list .step[data-step="2"]').click();
      await waitFor('step 2 with its tool call and the tool’s answer', async () => {
        const detail = await text(frame, '#detail');
        return /Tool call\s*add/.test(detail) && /Observation\s*from for_tool_call_\S+?2$/.test(detail) ? done(true) : pending(detail.slice(0, 200));
      });
      await screenshotThemes(s, 'formats-f-inspect', ['light', 'dark']);
      await picker.selectOption('say-hello_epoch_1');
      await waitFor('the second sample, its own steps and score', async () => {
        const rows = await rowCount(frame);
        const facts = await text(frame, '#episode-facts');
        return rows === 2 && /score includes: I/.test(facts) ? done(true) : pending(`${rows} rows, facts "${facts}"`);
      });
      assert.equal(await frame.locator('#sample-picker').inputValue(), 'say-hello_epoch_1');
      assert.match(await text(frame, '.sample-row'), /2 of 2/);
      await screenshot(s.page, 'formats-f-inspect-second-sample');
    });
  });
});
