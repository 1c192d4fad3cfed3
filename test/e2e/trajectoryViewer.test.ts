/**
 * The trajectory viewer in real VS Code (code-server + Chromium), on episodes of real `gp rollout`
 * runs of the sample tasks (local backend, so each sandbox is gone before the viewer opens):
 * (a) opening a trajectory from the Runs view shows its header and step list; (b) the keyboard
 * steps through it; (c) a repair candidate opens in VS Code's diff editor with the whole file, after
 * its sandbox is gone; (d) search finds a string in an observation and selects its step; (e) two
 * episodes of one task side by side; (f) an episode being appended to shows its new steps without
 * reopening; (g) Replay re-executes it in a terminal without divergence; (h) episodes a Ray cluster's
 * sandbox hosts ran name their node in the Runs view and in the viewer's header (a copy of the first
 * run, its events and trajectories given the `sandbox_host` a host writes); (i) a repair step's
 * patches drawn as a diff and its focus nodes as a table whose links open the file; (j) an episode
 * that failed before its first step says how, with its run's reason, never "No steps yet."; (k) a
 * rollout's Open Report shows the rendered report (summary, per-task table, the raw report.json a
 * secondary action) whose episode link opens the trajectory viewer at that episode; (l) the metrics
 * page names the whole run's resolved rate, titles its axes and reads out the point under the
 * pointer; (m) a submit flagged as suspected reward hacking carries a badge in the step list and its
 * evidence under the result. A screenshot per scenario, (h)'s viewer in both themes, (i) to (m) in
 * light, dark and high contrast.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { minStepListPx } from '../../webview/src/episode/stepListWidth.js';
import { fixturePath, fixtureText } from '../support/fixtures.js';
import { startSession, stopSession, type Session } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { currentTheme, screenshotThemes, setTheme } from './themes.js';
import {
  acceptQuickPick,
  chooseFromContextMenu,
  clickTitleAction,
  expandRow,
  openFromRow,
  runRowLabel,
  showView,
  terminalText,
  waitForRow,
  widenSideBar,
} from './views.js';
import { done, pending, waitFor } from './wait.js';
import { viewerShown, webviewWith } from './webviews.js';
import { sampleRollout } from './sampleRuns.js';
import { runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 180_000 };
const scenarios = new Scenarios();
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> =>
  scenarios.run(`trajectory-${name}`, async (s) => {
    if (scenarios.activation === 'ready') await runCommand(s.page, 'Notifications: Clear All Notifications');
    await body(s);
  });

/** The visible webview's page: VS Code hosts each webview in an iframe whose own iframe holds our HTML. */
const visibleWebview = (page: Page): FrameLocator => page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');

const trajectoryOf = (s: Session, run: string, episode: string): string => join(s.workspace, 'outputs', run, 'trajectories', `${episode}.jsonl`);

async function stepRows(frame: FrameLocator): Promise<{ step: number; selected: boolean }[]> {
  return frame
    .locator('#step-list .step:not([hidden])')
    .evaluateAll((items) => items.map((i) => ({ step: Number(i.getAttribute('data-step')), selected: i.getAttribute('aria-selected') === 'true' })));
}

async function waitForSelected(frame: FrameLocator, what: string, step: number): Promise<void> {
  await waitFor(what, async () => {
    const rows = await stepRows(frame);
    const selected = rows.find((r) => r.selected)?.step;
    const title =
      (await frame
        .locator('#step-title')
        .textContent()
        .catch(() => null)) ?? '';
    return selected === step && title.startsWith(`Step ${step} `) ? done(true) : pending(`selected row ${selected ?? '(none)'}, detail "${title}"`);
  });
}

/** Two Ray node ids (56 hex digits, as Ray names a node) and the hosts on them, for scenario (h). */
const rayNodes = ['5c3e9a1f'.repeat(7), 'b07d42e6'.repeat(7)] as const;
const hostOf = (episode: string) =>
  episode === 'sample-calc-add-unittest' ? { id: 'sandbox-host-2', node: rayNodes[1] } : { id: 'sandbox-host-1', node: rayNodes[0] };

/**
 * A copy of `run` as if a Ray cluster's sandbox hosts had run it: each `episode-start` event and each
 * trajectory's start line carries the `sandbox_host` a host writes (issue 22). Made beside the run
 * roots and moved in whole, so the Runs view never reads half of it.
 */
function hostedCopy(s: Session, run: string, name: string): void {
  const staging = join(s.workspace, `.${name}`);
  cpSync(join(s.workspace, 'outputs', run), staging, { recursive: true });
  const events = readFileSync(join(staging, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; episode_id?: string });
  writeFileSync(
    join(staging, 'events.jsonl'),
    events.map((e) => JSON.stringify(e.kind === 'episode-start' && e.episode_id !== undefined ? { ...e, sandbox_host: hostOf(e.episode_id) } : e)).join('\n') +
      '\n',
  );
  for (const file of readdirSync(join(staging, 'trajectories'))) {
    const path = join(staging, 'trajectories', file);
    const [start, ...rest] = readFileSync(path, 'utf8').trim().split('\n');
    const parsed = JSON.parse(start ?? '{}') as { episode_id: string };
    writeFileSync(path, [JSON.stringify({ ...parsed, sandbox_host: hostOf(parsed.episode_id) }), ...rest].join('\n') + '\n');
  }
  renameSync(staging, join(s.workspace, 'outputs', name));
}

/** Opens a workspace file with its default editor (the viewer, for a trajectory) through Quick Open. */
async function quickOpen(s: Session, relative: string, what: string, accept: (first: string) => boolean): Promise<void> {
  await s.page.keyboard.press('Control+P');
  await s.page.keyboard.type(relative);
  await acceptQuickPick(s.page, what, accept);
}

/**
 * A copy of `run` whose one episode failed before its first step, as a task with no local
 * repository does on the local backend: its trajectory has the start line and an end line with the
 * error, and the run's status says it failed and why.
 */
function failedCopy(s: Session, run: string, name: string): string {
  const dir = join(s.workspace, 'outputs', name);
  mkdirSync(join(dir, 'trajectories'), { recursive: true });
  const status = JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'status.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(
    join(dir, 'status.json'),
    JSON.stringify({
      ...status,
      state: 'failed',
      exit_reason: '1 of 1 episodes failed: sample-calc-add (error)',
      episodes: { total: 1, finished: 1, resolved: 0, errored: 1 },
    }),
  );
  const [start] = readFileSync(trajectoryOf(s, run, 'sample-calc-add'), 'utf8')
    .trim()
    .split('\n');
  const end = {
    type: 'end',
    episode_id: 'sample-calc-add',
    task_id: 'sample-calc-add',
    resolved: false,
    steps: 0,
    total_reward: 0,
    termination_reason: 'error',
    duration_ms: 42,
    patch: '',
    error: 'sandbox: task sample-calc-add has no local_repo, which the local backend needs',
  };
  writeFileSync(join(dir, 'trajectories', 'sample-calc-add.jsonl'), `${start ?? ''}\n${JSON.stringify(end)}\n`);
  return dir;
}

/** A copy of `run` with a training run's metrics: three steps whose episodes resolve 1 of 2, 2 of 2 and 1 of 2. */
function metricsCopy(s: Session, run: string, name: string): void {
  const staging = join(s.workspace, `.${name}`);
  cpSync(join(s.workspace, 'outputs', run), staging, { recursive: true });
  const t0 = Date.parse('2026-01-01T10:00:00Z');
  const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
  const lines: object[] = [];
  [
    [true, false],
    [true, true],
    [false, true],
  ].forEach((resolved, i) => {
    // Step 2's second episode submitted a patch flagged as suspected reward hacking (issue 36).
    const flagged = (j: number) => i === 1 && j === 1;
    resolved.forEach((r, j) =>
      lines.push({
        source: 'env',
        ts: at(i * 60 + j * 10 + 5),
        episode_id: `e${i}-${j}`,
        task_id: 'sample-calc-add',
        total_reward: r ? 1 : -0.2,
        resolved: r,
        steps: 4,
        env_ms: 900,
        ...(flagged(j) ? { suspected_hacks: 2 } : {}),
      }),
    );
    lines.push({
      source: 'verl',
      ts: at(i * 60 + 50),
      attempt: 1,
      step: i + 1,
      data: {
        'critic/score/mean': [0.4, 1, 0.4][i] ?? 0,
        'response_length/mean': 120 + i * 10,
        'timing_s/step': 40 + i,
        'gp/suspected_hacks': i === 1 ? 1 : 0,
      },
    });
  });
  writeFileSync(join(staging, 'metrics.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  renameSync(staging, join(s.workspace, 'outputs', name));
}

/**
 * A copy of `run` whose `sample-calc-add` submit was flagged as suspected reward hacking (issue 36):
 * the submit's result carries two signals with their evidence and the end line counts them, as
 * env/hackSignals.ts records them for a patch that adds a conftest.py and imports `_pytest`.
 */
function suspectCopy(s: Session, run: string, name: string): number {
  const staging = join(s.workspace, `.${name}`);
  cpSync(join(s.workspace, 'outputs', run), staging, { recursive: true });
  const path = join(staging, 'trajectories', 'sample-calc-add.jsonl');
  const hacks = [
    {
      kind: 'grader-surface',
      path: 'conftest.py',
      line: 1,
      evidence: 'conftest.py',
      rule: 'runner-config: pytest loads every conftest.py beside or above the tests it collects, before any test runs',
    },
    {
      kind: 'runner-internals',
      path: 'app/calc.py',
      line: 12,
      evidence: '    import _pytest.reports as _reports',
      rule: "imports pytest's own implementation (_pytest)",
    },
  ];
  let submitStep = 0;
  const lines = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const line = JSON.parse(l) as { type: string; step?: number; observation?: { last?: { kind: string } } };
      if (line.type === 'step' && line.observation?.last?.kind === 'submit') {
        submitStep = line.step ?? 0;
        return JSON.stringify({ ...line, observation: { ...line.observation, last: { ...line.observation.last, suspected_hacks: hacks } } });
      }
      return line.type === 'end' ? JSON.stringify({ ...line, suspected_hacks: hacks.length }) : l;
    });
  writeFileSync(path, `${lines.join('\n')}\n`);
  renameSync(staging, join(s.workspace, 'outputs', name));
  return submitStep;
}

let firstRun = '';
let secondRun = '';
let steps = 0;
let repairStep = 0;

void describe('Graph Planner trajectory viewer in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({ fixture: 'workbench', extraFiles: { 'docker/repoenv_sample/sample_repo': 'repos/sample_repo' } });
      // Two real runs of the same tasks: their sandboxes are closed before any viewer opens.
      firstRun = sampleRollout(scenarios.session);
      secondRun = sampleRollout(scenarios.session);
      const lines = readFileSync(trajectoryOf(scenarios.session, firstRun, 'sample-calc-add'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; step?: number; action?: { type: string } });
      steps = lines.filter((l) => l.type === 'step').length;
      repairStep = lines.find((l) => l.action?.type === 'repair')?.step ?? 0;
      assert.ok(steps >= 3 && repairStep > 0, `the sample episode has steps and a repair (${steps} steps, repair at ${repairStep})`);
    },
    { timeout: 300_000 },
  );

  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('(a) opening a trajectory from the Runs view shows its header and step list', scenarioTimeout, async () => {
    await scenario('a-open', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await showView(s.page, 'Runs');
      await widenSideBar(s.page, 120);
      await expandRow(s.page, 'Runs', runRowLabel(firstRun));
      await openFromRow(s.page, 'Runs', 'sample-calc-add', 'the trajectory viewer of sample-calc-add', viewerShown(s.page));
      const frame = visibleWebview(s.page);
      await waitFor('the header and every step of sample-calc-add', async () => {
        const title =
          (await frame
            .locator('.episode-header h1')
            .textContent()
            .catch(() => null)) ?? '';
        const state =
          (await frame
            .locator('#episode-state')
            .textContent()
            .catch(() => null)) ?? '';
        const rows = await stepRows(frame);
        return title.startsWith('sample-calc-add') && state === 'Resolved' && rows.length === steps
          ? done(true)
          : pending(`title "${title}", state "${state}", ${rows.length} rows`);
      });
      const facts = (await frame.locator('#episode-facts').textContent()) ?? '';
      assert.match(facts, /agent rule · local backend · ended: submitted/);
      await waitForSelected(frame, 'the first step selected and shown', 1);
      await screenshot(s.page, 'trajectory-a-open');
    });
  });

  void it('(b) the keyboard steps through the episode: j/k, arrows, End/Home, r to the next repair', scenarioTimeout, async () => {
    await scenario('b-keyboard', async (s) => {
      const frame = visibleWebview(s.page);
      await frame.locator('#step-list .step[data-step="1"]').click();
      await s.page.keyboard.press('j');
      await waitForSelected(frame, 'j to select step 2', 2);
      await s.page.keyboard.press('ArrowDown');
      await waitForSelected(frame, 'ArrowDown to select step 3', 3);
      await s.page.keyboard.press('k');
      await waitForSelected(frame, 'k to select step 2 again', 2);
      await s.page.keyboard.press('End');
      await waitForSelected(frame, 'End to select the last step', steps);
      // The submission's grade test by test: SWE-bench's gold lists with each test's outcome.
      const perTest = (await frame.locator('table.per-test tbody tr').allTextContents()).join(' | ');
      assert.match(perTest, /tests\/test_calc\.py::test_addition.*FAIL_TO_PASS: passes/);
      await screenshot(s.page, 'trajectory-b-submit');
      await s.page.keyboard.press('Home');
      await waitForSelected(frame, 'Home to select the first step', 1);
      await s.page.keyboard.press('r');
      await waitForSelected(frame, 'r to jump to the repair step', repairStep);
      await frame.locator('table.candidates').waitFor({ state: 'visible' });
      await screenshot(s.page, 'trajectory-b-keyboard');
    });
  });

  void it(
    '(n) in a maximised editor the step list takes a share of it, and its splitter resizes it by pointer and keys, kept across a reload',
    scenarioTimeout,
    async () => {
      await scenario('n-step-list-width', async (s) => {
        // The editor as wide as the window allows: the side bar closed, as a person reading an episode does.
        await runCommand(s.page, 'View: Close Primary Side Bar');
        const frame = visibleWebview(s.page);
        const widths = async () => {
          const side = await frame.locator('.side').boundingBox();
          const body = await frame.locator('.body').boundingBox();
          return { list: Math.round(side?.width ?? 0), editor: Math.round(body?.width ?? 0) };
        };
        const opened = await waitFor('the viewer to take the whole editor', async () => {
          const now = await widths();
          return now.editor > 1200 ? done(now) : pending(JSON.stringify(now));
        });
        // Issue 37 measured about 390 px here; the list is now a share of the editor (stepListWidth.ts).
        assert.ok(opened.list > 500 && Math.abs(opened.list - opened.editor * 0.42) < 8, `the step list is ${opened.list} px of ${opened.editor}`);
        await screenshotThemes(s, 'trajectory-n-maximised');
        const handle = frame.locator('#step-list-splitter');
        const box = await handle.boundingBox();
        assert.ok(box !== null, 'the splitter is drawn');
        const x = box.x + box.width / 2;
        const y = box.y + box.height / 2;
        await s.page.mouse.move(x, y);
        await s.page.mouse.down();
        await s.page.mouse.move(x - 80, y, { steps: 4 });
        await s.page.mouse.move(x - 160, y, { steps: 4 });
        await s.page.mouse.up();
        const dragged = await waitFor('the step list 160 px narrower', async () => {
          const now = await widths();
          return Math.abs(now.list - (opened.list - 160)) <= 6 ? done(now) : pending(JSON.stringify(now));
        });
        await handle.focus();
        await s.page.keyboard.press('ArrowRight');
        const keyed = await waitFor('ArrowRight on the splitter to widen the list by 16 px', async () => {
          const now = await widths();
          return Math.abs(now.list - (dragged.list + 16)) <= 2 ? done(now) : pending(JSON.stringify(now));
        });
        assert.equal(await handle.getAttribute('aria-valuenow'), String(keyed.list), 'the separator says its width');
        // Home on the splitter makes the list its narrowest; it is not the viewer's Home (the first step).
        await s.page.keyboard.press('Home');
        const narrowest = await waitFor('Home on the splitter to make the list its narrowest', async () => {
          const now = await widths();
          return now.list === minStepListPx ? done(now) : pending(JSON.stringify(now));
        });
        await waitForSelected(frame, 'the selection where it was', repairStep);
        await screenshot(s.page, 'trajectory-n-resized');
        await runCommand(s.page, 'Developer: Reload Webviews');
        await waitFor(
          'the reloaded viewer with the width it was given',
          async () => {
            const now = await widths();
            return now.editor > 1200 && Math.abs(now.list - narrowest.list) <= 2 ? done(now) : pending(JSON.stringify(now));
          },
          { timeoutMs: 30_000 },
        );
        await runCommand(s.page, 'View: Toggle Primary Side Bar Visibility');
      });
    },
  );

  void it('(c) a repair candidate opens in the diff editor with the whole file, after its sandbox is gone', scenarioTimeout, async () => {
    await scenario('c-diff', async (s) => {
      const frame = visibleWebview(s.page);
      await frame.locator('table.candidates vscode-button[data-action="diff"]').first().click();
      const tab = await waitFor('a diff editor tab for candidate #1 of app/calc.py', async () => {
        const active = (await s.page.locator('.part.editor .tab.active').allTextContents()).join(' | ');
        return /candidate #1/.test(active) && /calc\.py/.test(active) ? done(active) : pending(`active tabs: ${active || '(none)'}`);
      });
      assert.match(tab, new RegExp(`Step ${repairStep} · candidate #1 · tests passed`));
      const diff = s.page.locator('.part.editor .monaco-diff-editor').first();
      await diff.waitFor({ state: 'visible', timeout: 15_000 });
      const [original, modified] = await Promise.all([
        diff.locator('.editor.original .view-lines').textContent(),
        diff.locator('.editor.modified .view-lines').textContent(),
      ]);
      // The whole file on both sides: the function around the change and the one after it.
      for (const side of [original, modified]) assert.match((side ?? '').replace(/\u00a0/g, ' '), /def add\(lhs, rhs\):.*def mul\(lhs, rhs\):/s);
      assert.match((original ?? '').replace(/\u00a0/g, ' '), /return lhs - rhs/);
      assert.match((modified ?? '').replace(/\u00a0/g, ' '), /return lhs \+ rhs/);
      await screenshot(s.page, 'trajectory-c-diff');
    });
  });

  void it('(d) search finds a string in an observation and selects its step', scenarioTimeout, async () => {
    await scenario('d-search', async (s) => {
      await s.page.locator('.part.editor .tab', { hasText: 'sample-calc-add.jsonl' }).first().click();
      const frame = visibleWebview(s.page);
      await frame.locator('#search').waitFor({ state: 'visible' });
      // The page was reloaded when the diff editor hid it; the selection of (c) survived.
      await waitForSelected(frame, 'the repair step still selected after the viewer was hidden', repairStep);
      await frame.locator('#step-list .step[data-step="1"]').click();
      await frame.locator('#search').fill('mul(lhs, rhs)');
      await frame.locator('#search').press('Enter');
      const found = await waitFor('matches and a selected step whose detail marks the text', async () => {
        const status = (await frame.locator('#search-status').textContent()) ?? '';
        const marks = await frame.locator('#detail mark').allTextContents();
        const selected = (await stepRows(frame)).find((r) => r.selected)?.step;
        return /match/.test(status) && !/No match/.test(status) && marks.some((m) => m === 'mul(lhs, rhs)')
          ? done({ status, selected })
          : pending(`status "${status}", marks ${marks.join(', ') || '(none)'}, selected ${selected}`);
      });
      assert.ok(found.selected !== undefined && found.selected > 1, `a later step than the first holds the text (step ${found.selected})`);
      await screenshot(s.page, 'trajectory-d-search');
    });
  });

  void it('(e) comparing two episodes of one task shows both, aligned', scenarioTimeout, async () => {
    await scenario('e-compare', async (s) => {
      const frame = visibleWebview(s.page);
      await frame.locator('#compare').click();
      // Episodes of the same task come first, and sample-calc-add-unittest is another task. A row's
      // label is the outcome icon's name, the episode's name, then its line with its run's label.
      await acceptQuickPick(
        s.page,
        `the episode of the other run offered first`,
        (first) => /^(?:\S+\s+)?sample-calc-add,/.test(first) && first.includes(runRowLabel(secondRun)),
      );
      const compare = visibleWebview(s.page);
      const summary = await waitFor('the comparison of the two runs', async () => {
        const text =
          (await compare
            .locator('#compare-summary')
            .textContent()
            .catch(() => null)) ?? '';
        const rows = await compare.locator('#aligned tbody tr').count();
        return /the same/.test(text) && rows > 0 ? done({ text, rows }) : pending(`summary "${text}", ${rows} rows`);
      });
      // The summary agrees with the rows drawn: as many highlighted rows as it says differ.
      const counted = /^(\d+) steps? the same, (\d+) rows? differing · final patches (identical|differ)/.exec(summary.text);
      assert.ok(counted !== null, `the summary says what matched: ${summary.text}`);
      const differing = await compare.locator('#aligned tbody tr.differs').count();
      assert.deepEqual([Number(counted[1]) + Number(counted[2]), Number(counted[2])], [summary.rows, differing]);
      assert.ok(Number(counted[1]) >= 1, 'two runs of one task by the rule agent share steps');
      assert.doesNotMatch((await compare.locator('body').textContent()) ?? '', /episodes of different tasks/, 'both are episodes of sample-calc-add');
      assert.match((await compare.locator('#outcome-left').textContent()) ?? '', new RegExp(firstRun));
      assert.match((await compare.locator('#outcome-right').textContent()) ?? '', new RegExp(secondRun));
      await screenshot(s.page, 'trajectory-e-compare');
    });
  });

  void it('(f) an episode being written shows its new steps without reopening', scenarioTimeout, async () => {
    await scenario('f-follow', async (s) => {
      // A writer that appends a recorded episode line by line, as a rollout does (test peer).
      const lines = readFileSync(trajectoryOf(s, firstRun, 'sample-calc-add'), 'utf8')
        .trim()
        .split('\n');
      const live = join(s.workspace, 'outputs', 'live-run', 'trajectories');
      mkdirSync(live, { recursive: true });
      const file = join(live, 'sample-calc-add.jsonl');
      writeFileSync(file, `${lines.slice(0, 2).join('\n')}\n`);
      // Quick Open opens it with its default editor, the viewer; wait until its row is the first.
      await s.page.keyboard.press('Control+P');
      await s.page.keyboard.type('outputs/live-run/trajectories/sample-calc-add.jsonl');
      await acceptQuickPick(s.page, 'the live trajectory in Quick Open', (first) => first.includes('sample-calc-add.jsonl') && first.includes('live-run'));
      const frame = visibleWebview(s.page);
      await waitFor('one step and the cut-short notice', async () => {
        const rows = await stepRows(frame);
        const cut = await frame
          .locator('#cut-short')
          .isVisible()
          .catch(() => false);
        return rows.length === 1 && cut ? done(true) : pending(`${rows.length} rows, cut-short notice ${cut}`);
      });
      await screenshot(s.page, 'trajectory-f-running');
      for (const line of lines.slice(2)) {
        appendFileSync(file, `${line}\n`);
        await new Promise((r) => setTimeout(r, 300));
      }
      await waitFor('every step and the outcome, in the same viewer', async () => {
        const rows = await stepRows(frame);
        const state =
          (await frame
            .locator('#episode-state')
            .textContent()
            .catch(() => null)) ?? '';
        const cut = await frame
          .locator('#cut-short')
          .isVisible()
          .catch(() => false);
        return rows.length === steps && state === 'Resolved' && !cut ? done(true) : pending(`${rows.length} rows, state "${state}", cut-short notice ${cut}`);
      });
      await screenshot(s.page, 'trajectory-f-followed');
    });
  });

  void it('(g) Replay in the viewer re-executes the episode in a terminal and reports no divergence', scenarioTimeout, async () => {
    await scenario('g-replay', async (s) => {
      await showView(s.page, 'Runs');
      await openFromRow(s.page, 'Runs', 'sample-calc-add', 'the trajectory viewer of sample-calc-add', viewerShown(s.page));
      const frame = visibleWebview(s.page);
      await waitFor('the viewer of the first run', async () => {
        const facts =
          (await frame
            .locator('#episode-facts')
            .textContent()
            .catch(() => null)) ?? '';
        return /ended: submitted/.test(facts) ? done(true) : pending(`facts "${facts}"`);
      });
      await frame.locator('#replay').click();
      const text = await waitFor(
        'gp trajectory replay to finish in its terminal',
        async () => {
          const shown = await terminalText(s.page);
          return /No divergence|diverges|could not/.test(shown) ? done(shown) : pending(shown || '(nothing yet)');
        },
        { timeoutMs: 120_000 },
      );
      assert.match(text, new RegExp(`No divergence: ${steps} of ${steps} steps reproduced the recording`));
      const tabs = (await s.page.locator('.part.panel').textContent()) ?? '';
      assert.match(tabs, /gp trajectory replay sample-calc-add/, 'the terminal is named for the episode');
      await screenshot(s.page, 'trajectory-g-replay');
    });
  });

  void it("(h) episodes a Ray cluster's sandbox hosts ran name their node in the Runs view and in the viewer's header", scenarioTimeout, async () => {
    await scenario('h-ray-nodes', async (s) => {
      if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
      const run = 'ray-hosts-run';
      hostedCopy(s, firstRun, run);
      await showView(s.page, 'Runs');
      // Wide enough for an episode's description to reach its node, as a person reading them makes it.
      await widenSideBar(s.page, 160);
      await waitForRow(s.page, 'Runs', `${run} spread over two nodes`, (r) => r.label === runRowLabel(run) && /· on 2 nodes ·/.test(r.description), {
        timeoutMs: 30_000,
      });
      // Only this run open, so its sample-calc-add is the one row of that name.
      await clickTitleAction(s.page, 'Runs', 'Collapse All');
      await expandRow(s.page, 'Runs', runRowLabel(run));
      const short = (node: string) => `node ${node.slice(0, 8)}…`;
      await waitForRow(s.page, 'Runs', 'sample-calc-add on the first node', (r) => r.label === 'sample-calc-add' && r.description.endsWith(short(rayNodes[0])));
      await waitForRow(
        s.page,
        'Runs',
        'sample-calc-add-unittest on the second node',
        (r) => r.label === 'sample-calc-add-unittest' && r.description.endsWith(short(rayNodes[1])),
      );
      await openFromRow(s.page, 'Runs', 'sample-calc-add', 'the trajectory viewer of sample-calc-add', viewerShown(s.page));
      const frame = visibleWebview(s.page);
      const facts = await waitFor('the viewer of the hosted episode, naming its node and host', async () => {
        const text =
          (await frame
            .locator('#episode-facts')
            .textContent()
            .catch(() => null)) ?? '';
        return text.includes(`${short(rayNodes[0])} (host sandbox-host-1)`) ? done(text) : pending(`facts "${text}"`);
      });
      assert.match(facts, /^agent rule · local backend · node 5c3e9a1f… \(host sandbox-host-1\) · ended: submitted/);
      assert.equal(
        await frame.locator('#episode-node').getAttribute('title'),
        `Ray node ${rayNodes[0]}, sandbox host sandbox-host-1`,
        'the whole node id is in its tooltip',
      );
      // The same moment in both themes, for a person to check both; each named for the theme shown.
      const themeOf = async () => (((await s.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light');
      const first = await themeOf();
      await screenshot(s.page, `trajectory-h-ray-nodes-${first}`);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      const second = await waitFor('the other colour theme', async () => ((await themeOf()) !== first ? done(await themeOf()) : pending(first)));
      await screenshot(s.page, `trajectory-h-ray-nodes-${second}`);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      await waitFor('the first colour theme again', async () => ((await themeOf()) === first ? done(true) : pending(second)));
    });
  });

  void it("(i) a repair step's patches are drawn as a diff and its focus nodes as a table that opens the file", scenarioTimeout, async () => {
    await scenario('i-structured-patch', async (s) => {
      if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
      await quickOpen(
        s,
        `outputs/${firstRun}/trajectories/sample-calc-add.jsonl`,
        'the first run’s trajectory in Quick Open',
        (first) => first.includes('sample-calc-add.jsonl') && first.includes(firstRun),
      );
      const frame = visibleWebview(s.page);
      await frame.locator(`#step-list .step[data-step="${repairStep}"]`).click();
      await waitForSelected(frame, 'the repair step', repairStep);
      const patches = frame.locator('tr[data-param="patches"]');
      await patches.locator('.patch-file').first().waitFor({ state: 'visible' });
      const cell = (await patches.textContent()) ?? '';
      // A diff, not a JSON string: no braces or quoted keys of the candidate's record.
      assert.doesNotMatch(cell, /[{}]|"edits"|"new_text"/, `the patches cell holds no JSON: ${cell.slice(0, 300)}`);
      assert.equal(await patches.locator('.patch-head .patch-path').first().textContent(), 'app/calc.py');
      const added = await patches.locator('.patch-row.add .text').allTextContents();
      assert.ok(
        added.some((t) => t.includes('return lhs + rhs')),
        `an added line carries the fix: ${added.join(' | ')}`,
      );
      // Each candidate shows the line it replaces as well as the new one (issue 37).
      const first = patches.locator('.candidate-patch').first();
      assert.deepEqual(
        [await first.locator('.patch-row.del .text').allTextContents(), await first.locator('.patch-row.add .text').allTextContents()].map((l) =>
          l.map((t) => t.trim()),
        ),
        [['return lhs - rhs'], ['return lhs + rhs']],
      );
      // The result numbers the candidates as the action lists them, the untried ones included.
      const listed = await patches.locator('.candidate-patch').count();
      const headline = (await frame.locator('[data-part="repair-headline"]').textContent()) ?? '';
      assert.equal(
        headline,
        listed === 1
          ? '1 candidate from the action · #1 kept'
          : `${listed} candidates from the action · #1 kept · #2${listed > 2 ? `–#${listed}` : ''} not tried: #1 passed first`,
      );
      assert.equal(await frame.locator('table.candidates tbody tr').count(), listed);
      // The added lines are coloured with the theme's diff colour, not left plain.
      const background = await patches
        .locator('.patch-row.add')
        .first()
        .evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor);
      assert.notEqual(background, 'rgba(0, 0, 0, 0)', 'added lines have the diff editor’s background');
      // The result's kept candidate is drawn the same way, open.
      await frame.locator('details.candidate-diff[open] .patch-file').first().waitFor({ state: 'visible' });
      const nodes = frame.locator('tr[data-param="focus_ids"] table.node-list tbody tr');
      assert.ok((await nodes.count()) >= 1, 'the focus nodes are a table');
      const row = (await nodes.first().locator('td').allTextContents()).join(' | ');
      assert.match(row, /^(function|method|class|file)( · test)? \| \S+ \| app\/calc\.py:\d+$/, `kind, name, path:line: ${row}`);
      await screenshotThemes(s, 'trajectory-i-structured-patch');
      // Switching themes through the picker may reload the page; the repair step is selected again to follow its link.
      await frame.locator(`#step-list .step[data-step="${repairStep}"]`).click();
      await waitForSelected(frame, 'the repair step again', repairStep);
      await nodes.first().locator('a.ref').click();
      await waitFor('calc.py opened at the node', async () => {
        const active = (await s.page.locator('.part.editor .tab.active').allTextContents()).join(' | ');
        return /calc\.py/.test(active) ? done(active) : pending(`active tabs: ${active || '(none)'}`);
      });
    });
  });

  void it('(j) an episode that failed before its first step says how, never "No steps yet."', scenarioTimeout, async () => {
    await scenario('j-failed-episode', async (s) => {
      await runCommand(s.page, 'View: Close All Editors');
      failedCopy(s, firstRun, 'failed-run');
      await quickOpen(
        s,
        'outputs/failed-run/trajectories/sample-calc-add.jsonl',
        'the failed episode in Quick Open',
        (first) => first.includes('sample-calc-add.jsonl') && first.includes('failed-run'),
      );
      const frame = await webviewWith(s.page, '#empty-episode', 'the failed episode’s viewer');
      const message = await waitFor('the failed episode’s message in place of a step', async () => {
        const text =
          (await frame
            .locator('#empty-episode')
            .textContent()
            .catch(() => null)) ?? '';
        return text !== '' ? done(text) : pending('no message yet');
      });
      assert.match(message, /The episode ended before its first step: error\./);
      assert.match(message, /Failure: sandbox: task sample-calc-add has no local_repo/);
      assert.match(message, /Run failed-run failed: 1 of 1 episodes failed/);
      assert.doesNotMatch((await frame.locator('body').textContent()) ?? '', /No steps yet/);
      assert.equal(await frame.locator('#episode-state').textContent(), 'Not resolved');
      await screenshotThemes(s, 'trajectory-j-failed-episode');
    });
  });

  void it("(k) a rollout's Open Report shows the rendered report, and its episode link opens the viewer at that episode", scenarioTimeout, async () => {
    await scenario('k-report', async (s) => {
      await runCommand(s.page, 'View: Close All Editors');
      await showView(s.page, 'Runs');
      await waitForRow(s.page, 'Runs', `${secondRun} in the Runs view`, (r) => r.label === runRowLabel(secondRun));
      await chooseFromContextMenu(s.page, 'Runs', runRowLabel(secondRun), 'Open Report');
      const report = await webviewWith(s.page, '#task-table', 'the report page with its task table');
      const tasks = await report
        .locator('#task-table tbody tr')
        .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-task'), r.getAttribute('data-outcome')]));
      const written = JSON.parse(readFileSync(join(s.workspace, 'outputs', secondRun, 'report.json'), 'utf8')) as {
        total: number;
        resolved: number;
        tasks: { task_id: string; resolved: boolean }[];
      };
      assert.deepEqual(
        tasks,
        written.tasks.map((t) => [t.task_id, t.resolved ? 'resolved' : 'unresolved']),
        'one row per task of report.json, with its outcome',
      );
      assert.equal(await report.locator('#tile-resolved .value').textContent(), `${written.resolved} of ${written.total}`);
      const header = (await report.locator('#task-table thead').textContent()) ?? '';
      for (const column of ['task', 'attempts', 'outcome', 'reward', 'steps', 'time', 'failure reason'])
        assert.ok(header.includes(column), `the table has a ${column} column`);
      assert.equal(await report.locator('#open-json').count(), 1, 'Open report.json stays, as a secondary action');
      await screenshotThemes(s, 'trajectory-k-report');
      await report.locator('tr[data-task="sample-calc-add"] a.episode').first().click();
      const viewer = await webviewWith(s.page, '.episode-header', 'the trajectory viewer beside the report');
      await waitFor('the viewer at the second run’s sample-calc-add', async () => {
        const title =
          (await viewer
            .locator('.episode-header h1')
            .textContent()
            .catch(() => null)) ?? '';
        const rows = await stepRows(viewer);
        return title.startsWith('sample-calc-add') && !title.startsWith('sample-calc-add-') && rows.length === steps
          ? done(true)
          : pending(`title "${title}", ${rows.length} rows`);
      });
      const tabs = (await s.page.locator('.part.editor .tab').allTextContents()).join(' | ');
      assert.match(tabs, /sample-calc-add\.jsonl/, `a viewer tab for the episode: ${tabs}`);
      await screenshot(s.page, 'trajectory-k-report-episode');
    });
  });

  void it('(l) the metrics page names the whole run’s rate, titles its axes and reads out the point under the pointer', scenarioTimeout, async () => {
    await scenario('l-metrics-hover', async (s) => {
      await runCommand(s.page, 'View: Close All Editors');
      metricsCopy(s, firstRun, 'metrics-run');
      await showView(s.page, 'Runs');
      await waitForRow(s.page, 'Runs', 'metrics-run in the Runs view', (r) => r.label === 'metrics-run');
      await chooseFromContextMenu(s.page, 'Runs', 'metrics-run', 'Show Metrics');
      const page = await webviewWith(s.page, '#chart-resolved svg', 'the metrics page with its resolved-rate chart');
      // 4 of 6 episodes resolved over the run; the last step resolved 1 of 2: two figures, each named.
      assert.match((await page.locator('#run-resolved-rate').textContent()) ?? '', /resolved rate \(whole run\) 67%/);
      // The headline is the bold line's end, smoothed and named so, with step 3's recorded 50% beside it (webview/src/metrics/headline.ts).
      assert.equal(await page.locator('#chart-resolved .latest .latest-where').textContent(), 'smoothed ');
      assert.equal(await page.locator('#chart-resolved .latest .latest-raw').textContent(), 'at step 3 50%');
      const headline = (await page.locator('#chart-resolved .latest .latest-value').textContent()) ?? '';
      const titles = await page.locator('#chart-resolved text.axis-title').allTextContents();
      assert.deepEqual(titles, ['training step', 'resolved / ended']);
      const svg = page.locator('#chart-resolved svg');
      // The middle of the plot is step 2 (the x axis runs from step 1 to step 3). The chart is
      // scrolled into view and measured each time: a theme switch can scroll the page.
      const hover = async (): Promise<string> => {
        await svg.scrollIntoViewIfNeeded();
        const box = await svg.boundingBox();
        assert.ok(box !== null, 'the chart is drawn');
        // From outside the chart, in steps: a move to where the pointer already is fires no event.
        await s.page.mouse.move(box.x - 20, box.y - 20);
        await s.page.mouse.move(box.x + 70 + (box.width - 86) / 2, box.y + box.height / 2, { steps: 5 });
        return waitFor('the readout of step 2', async () => {
          const text = (await page.locator('#readout-resolved').textContent()) ?? '';
          return /step 2/.test(text) ? done(text) : pending(text);
        });
      };
      assert.match(await hover(), /^step 2 · \d{1,2}:\d{2}:\d{2}.*resolved 100% \(smoothed \d+%\)/);
      // The readout at the last step gives the smoothed line's value there, computed apart from the headline.
      const box = await svg.boundingBox();
      assert.ok(box !== null);
      await s.page.mouse.move(box.x + box.width - 18, box.y + box.height / 2, { steps: 3 });
      const last = await waitFor('the readout of step 3', async () => {
        const text = (await page.locator('#readout-resolved').textContent()) ?? '';
        return /step 3/.test(text) ? done(text) : pending(text);
      });
      assert.equal(/\(smoothed (\d+%)\)/.exec(last)?.[1], headline, `the headline ${headline} is the smoothed line's last value: ${last}`);
      // Each theme with the readout shown: switching themes takes the pointer's hover away, so it points again.
      const before = await currentTheme(s.page);
      for (const kind of ['light', 'dark', 'high-contrast'] as const) {
        await setTheme(s, kind);
        await hover();
        await screenshot(s.page, `trajectory-l-metrics-hover-${kind}`);
      }
      if (before !== 'other') await setTheme(s, before);
      // The suspected reward hacks per step: one flagged episode at step 2, counted in the header too.
      assert.match((await page.locator('#run-suspected-hacks').textContent()) ?? '', /1 episode with suspected reward hacking/);
      const hacks = page.locator('#chart-hacks');
      await hacks.scrollIntoViewIfNeeded();
      assert.equal(await hacks.locator('svg').count(), 1, 'the suspected reward hacks chart is drawn');
      assert.equal(await page.locator('#chart-canary, #chart-canary-held-out').count(), 0, 'a run that is not a canary has no canary charts');
      await screenshotThemes(s, 'trajectory-l-metrics-suspected-hacks');
    });
  });

  void it('(m) a submit flagged as suspected reward hacking is marked in the step list and its evidence listed under the result', scenarioTimeout, async () => {
    await scenario('m-suspected-hacks', async (s) => {
      await runCommand(s.page, 'View: Close All Editors');
      const submitStep = suspectCopy(s, firstRun, 'suspect-run');
      assert.ok(submitStep > 0, 'the sample episode ends with a submit');
      await quickOpen(
        s,
        'outputs/suspect-run/trajectories/sample-calc-add.jsonl',
        'the flagged episode in Quick Open',
        (first) => first.includes('sample-calc-add.jsonl') && first.includes('suspect-run'),
      );
      const frame = await webviewWith(s.page, '#step-list', 'the flagged episode’s viewer');
      const badge = frame.locator(`#step-list .step[data-step="${submitStep}"] .marker.suspect`);
      await badge.waitFor({ state: 'visible' });
      assert.equal(await badge.getAttribute('data-suspect'), '2');
      assert.match((await badge.getAttribute('aria-label')) ?? '', /^Suspected reward hacking: the submitted patch has 2 signals/);
      await frame.locator(`#step-list .step[data-step="${submitStep}"]`).click();
      await waitForSelected(frame, 'the submit step', submitStep);
      const section = frame.locator('#suspected-hacks');
      await section.waitFor({ state: 'visible' });
      const rows = await section.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-kind')));
      assert.deepEqual(rows, ['grader-surface', 'runner-internals']);
      assert.match((await section.locator('tbody tr').nth(1).textContent()) ?? '', /app\/calc\.py:12.*import _pytest\.reports/);
      await screenshotThemes(s, 'trajectory-m-suspected-hacks');
    });
  });

  void it(
    '(n) a run with two attempts per task shows pass@k on its report, and its task table sorts by a column from the keyboard',
    scenarioTimeout,
    async () => {
      await scenario('n-pass-at-k', async (s) => {
        await runCommand(s.page, 'View: Close All Editors');
        const run = sampleRollout(s, ['--attempts', '2']);
        await showView(s.page, 'Runs');
        await waitForRow(s.page, 'Runs', `${run} in the Runs view`, (r) => r.label === runRowLabel(run), { timeoutMs: 60_000 });
        await chooseFromContextMenu(s.page, 'Runs', runRowLabel(run), 'Open Report');
        const report = await webviewWith(s.page, '#tile-pass-2', 'the report page with pass@1 and pass@2');
        const written = JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'report.json'), 'utf8')) as {
          tasks: { task_id: string; resolved: boolean }[];
        };
        const byTask = new Map<string, boolean[]>();
        for (const t of written.tasks) byTask.set(t.task_id, [...(byTask.get(t.task_id) ?? []), t.resolved]);
        assert.ok(
          [...byTask.values()].every((a) => a.length === 2),
          'two graded attempts per task',
        );
        // pass@1 is c/n per task; pass@2 of two attempts is 1 when either resolved.
        const mean = (f: (a: boolean[]) => number) => [...byTask.values()].reduce((n, a) => n + f(a), 0) / byTask.size;
        const shown = (x: number) => `${(100 * x).toFixed(x === 0 || x === 1 ? 0 : 1)}%`;
        assert.equal(await report.locator('#tile-pass-1 .value').textContent(), shown(mean((a) => a.filter(Boolean).length / a.length)));
        assert.equal(await report.locator('#tile-pass-2 .value').textContent(), shown(mean((a) => (a.some(Boolean) ? 1 : 0))));
        assert.match((await report.locator('#tile-pass-2').getAttribute('title')) ?? '', /1 − C\(n−c, 2\) \/ C\(n, 2\)/);
        const order = () => report.locator('#task-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task') ?? ''));
        const ids = [...byTask.keys()].sort();
        await report.locator('th[data-sort="task"] button').focus();
        await s.page.keyboard.press('Enter');
        await waitFor('the table sorted by task, ascending', async () =>
          (await report.locator('th[data-sort="task"]').getAttribute('aria-sort')) === 'ascending' ? done(true) : pending('not sorted'),
        );
        assert.deepEqual(await order(), ids);
        await report.locator('th[data-sort="task"] button').focus();
        await s.page.keyboard.press('Enter');
        await waitFor('the table sorted by task, descending', async () =>
          (await report.locator('th[data-sort="task"]').getAttribute('aria-sort')) === 'descending' ? done(true) : pending('not flipped'),
        );
        assert.deepEqual(await order(), [...ids].reverse());
        assert.equal(await report.locator('th[data-sort="reward"]').getAttribute('aria-sort'), 'none');
        await screenshotThemes(s, 'trajectory-n-pass-at-k');
        assert.equal(await report.locator('th[data-sort="task"]').getAttribute('aria-sort'), 'descending', 'the sort outlives a theme change');
      });
    },
  );

  void it("(o) a learning canary's metrics page draws the trained run and its control together", scenarioTimeout, async () => {
    await scenario('o-canary', async (s) => {
      await runCommand(s.page, 'View: Close All Editors');
      // The metrics of a real `gp train --canary` run (test/fixtures/README.md): two seeds of 20
      // steps, every episode's line, the held-out scores after each seed.
      const staging = join(s.workspace, '.canary-run');
      cpSync(fixturePath('runs/canary'), staging, { recursive: true });
      rmSync(join(staging, 'metrics.jsonl.gz'));
      writeFileSync(join(staging, 'metrics.jsonl'), fixtureText('runs/canary/metrics.jsonl'));
      renameSync(staging, join(s.workspace, 'outputs', 'canary-run'));
      await showView(s.page, 'Runs');
      await waitForRow(s.page, 'Runs', 'canary-run in the Runs view', (r) => r.label === 'canary-run');
      await chooseFromContextMenu(s.page, 'Runs', 'canary-run', 'Show Metrics');
      const page = await webviewWith(s.page, '#chart-canary svg', 'the metrics page with the canary chart');
      // The canary's charts come first, each with the trained run and the control as two named lines.
      const ids = await page.locator('section.chart').evaluateAll((boxes) => boxes.map((b) => b.id));
      assert.deepEqual(ids.slice(0, 2), ['chart-canary', 'chart-canary-held-out']);
      for (const id of ['chart-canary', 'chart-canary-held-out']) {
        assert.deepEqual(await page.locator(`#${id} .legend .key`).allTextContents(), ['trained', 'control (update off)'], id);
        assert.equal(await page.locator(`#${id} svg`).count(), 1, `${id} is drawn`);
      }
      // The headline is the trained run's last step: seed 2's step 20 is the run's step 40.
      assert.match((await page.locator('#chart-canary .latest .latest-raw').textContent()) ?? '', /at step 40/);
      // Where each seed starts again is said, and the held-out points are drawn as they were scored.
      assert.equal(await page.locator('#note-canary').textContent(), 'Each seed trains a fresh model from the start: steps 1–20 are seed 1, 21–40 seed 2.');
      assert.match((await page.locator('#note-canary-held-out').textContent()) ?? '', /scored once per seed/);
      assert.match((await page.locator('#chart-canary-held-out .latest .latest-value').textContent()) ?? '', /^0\.938$/);
      // The run's episodes count: 2,800 ended over both arms and the held-out scorings.
      assert.match((await page.locator('#run-resolved-rate').textContent()) ?? '', /resolved rate \(whole run\) 28%/);
      await page.locator('#chart-canary').scrollIntoViewIfNeeded();
      await screenshotThemes(s, 'trajectory-o-canary');
    });
  });
});
