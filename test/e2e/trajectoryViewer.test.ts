/**
 * The trajectory viewer in real VS Code (code-server + Chromium), on episodes of real `gp rollout`
 * runs of the sample tasks (local backend, so each sandbox is gone before the viewer opens):
 * (a) opening a trajectory from the Runs view shows its header and step list; (b) the keyboard
 * steps through it; (c) a repair candidate opens in VS Code's diff editor with the whole file, after
 * its sandbox is gone; (d) search finds a string in an observation and selects its step; (e) two
 * episodes of one task side by side; (f) an episode being appended to shows its new steps without
 * reopening; (g) Replay re-executes it in a terminal without divergence; (h) episodes a Ray cluster's
 * sandbox hosts ran name their node in the Runs view and in the viewer's header (a copy of the first
 * run, its events and trajectories given the `sandbox_host` a host writes). A screenshot per
 * scenario, (h)'s viewer in both themes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { repoRoot, startSession, stopSession, type Session } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { acceptQuickPick, expandRow, rowLocator, runRowLabel, showView, terminalText, viewPane, waitForRow, widenSideBar } from './views.js';
import { done, pending, waitFor } from './wait.js';
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

/** Runs `gp rollout` of the sample tasks in the workspace with the built CLI; returns the run folder's name. */
function rollout(s: Session): string {
  const before = new Set(runs(s));
  // Without embeddings: the .vsix does not carry onnxruntime-node, so the replay the viewer starts
  // (the installed extension's CLI) could not run them, and would rightly report the hints differ.
  const result = spawnSync(process.execPath, [join(repoRoot, 'dist/cli.js'), 'rollout', 'datasets/sample/tasks.jsonl', '--config', 'configs/experiments/sample.yaml', '--set', 'env.semantic_search=off'], { cwd: s.workspace, encoding: 'utf8', timeout: 120_000 });
  assert.equal(result.status, 0, `gp rollout failed:\n${result.stdout}\n${result.stderr}`);
  const made = runs(s).filter((r) => !before.has(r));
  assert.equal(made.length, 1, `one new run folder: ${made.join(', ')}`);
  return made[0] ?? '';
}

function runs(s: Session): string[] {
  const out = join(s.workspace, 'outputs');
  return existsSync(out) ? readdirSync(out).sort() : [];
}

const trajectoryOf = (s: Session, run: string, episode: string): string => join(s.workspace, 'outputs', run, 'trajectories', `${episode}.jsonl`);

async function stepRows(frame: FrameLocator): Promise<{ step: number; selected: boolean }[]> {
  return frame.locator('#step-list .step:not([hidden])').evaluateAll((items) =>
    items.map((i) => ({ step: Number(i.getAttribute('data-step')), selected: i.getAttribute('aria-selected') === 'true' })),
  );
}

async function waitForSelected(frame: FrameLocator, what: string, step: number): Promise<void> {
  await waitFor(what, async () => {
    const rows = await stepRows(frame);
    const selected = rows.find((r) => r.selected)?.step;
    const title = (await frame.locator('#step-title').textContent().catch(() => null)) ?? '';
    return selected === step && title.startsWith(`Step ${step} `) ? done(true) : pending(`selected row ${selected ?? '(none)'}, detail "${title}"`);
  });
}

/** Two Ray node ids (56 hex digits, as Ray names a node) and the hosts on them, for scenario (h). */
const rayNodes = ['5c3e9a1f'.repeat(7), 'b07d42e6'.repeat(7)] as const;
const hostOf = (episode: string) => (episode === 'sample-calc-add-unittest' ? { id: 'sandbox-host-2', node: rayNodes[1] } : { id: 'sandbox-host-1', node: rayNodes[0] });

/**
 * A copy of `run` as if a Ray cluster's sandbox hosts had run it: each `episode-start` event and each
 * trajectory's start line carries the `sandbox_host` a host writes (issue 22). Made beside the run
 * roots and moved in whole, so the Runs view never reads half of it.
 */
function hostedCopy(s: Session, run: string, name: string): void {
  const staging = join(s.workspace, `.${name}`);
  cpSync(join(s.workspace, 'outputs', run), staging, { recursive: true });
  const events = readFileSync(join(staging, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; episode_id?: string });
  writeFileSync(join(staging, 'events.jsonl'), events.map((e) => JSON.stringify(e.kind === 'episode-start' && e.episode_id !== undefined ? { ...e, sandbox_host: hostOf(e.episode_id) } : e)).join('\n') + '\n');
  for (const file of readdirSync(join(staging, 'trajectories'))) {
    const path = join(staging, 'trajectories', file);
    const [start, ...rest] = readFileSync(path, 'utf8').trim().split('\n');
    const parsed = JSON.parse(start ?? '{}') as { episode_id: string };
    writeFileSync(path, [JSON.stringify({ ...parsed, sandbox_host: hostOf(parsed.episode_id) }), ...rest].join('\n') + '\n');
  }
  renameSync(staging, join(s.workspace, 'outputs', name));
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
      firstRun = rollout(scenarios.session);
      secondRun = rollout(scenarios.session);
      const lines = readFileSync(trajectoryOf(scenarios.session, firstRun, 'sample-calc-add'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; step?: number; action?: { type: string } });
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
      await rowLocator(s.page, 'Runs', 'sample-calc-add').click();
      const frame = visibleWebview(s.page);
      await waitFor('the header and every step of sample-calc-add', async () => {
        const title = (await frame.locator('.episode-header h1').textContent().catch(() => null)) ?? '';
        const state = (await frame.locator('#episode-state').textContent().catch(() => null)) ?? '';
        const rows = await stepRows(frame);
        return title.startsWith('sample-calc-add') && state === 'Resolved' && rows.length === steps ? done(true) : pending(`title "${title}", state "${state}", ${rows.length} rows`);
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

  void it("(c) a repair candidate opens in the diff editor with the whole file, after its sandbox is gone", scenarioTimeout, async () => {
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
        return /match/.test(status) && !/No match/.test(status) && marks.some((m) => m === 'mul(lhs, rhs)') ? done({ status, selected }) : pending(`status "${status}", marks ${marks.join(', ') || '(none)'}, selected ${selected}`);
      });
      assert.ok(found.selected !== undefined && found.selected > 1, `a later step than the first holds the text (step ${found.selected})`);
      await screenshot(s.page, 'trajectory-d-search');
    });
  });

  void it('(e) comparing two episodes of one task shows both, aligned', scenarioTimeout, async () => {
    await scenario('e-compare', async (s) => {
      const frame = visibleWebview(s.page);
      await frame.locator('#compare').click();
      // Episodes of the same task come first, and sample-calc-add-unittest is another task.
      await acceptQuickPick(s.page, `the episode of the other run offered first`, (first) => /^sample-calc-add\b(?!-)/.test(first) && first.includes(secondRun));
      const compare = visibleWebview(s.page);
      const summary = await waitFor('the comparison of the two runs', async () => {
        const text = (await compare.locator('#compare-summary').textContent().catch(() => null)) ?? '';
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
      const lines = readFileSync(trajectoryOf(s, firstRun, 'sample-calc-add'), 'utf8').trim().split('\n');
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
        const cut = await frame.locator('#cut-short').isVisible().catch(() => false);
        return rows.length === 1 && cut ? done(true) : pending(`${rows.length} rows, cut-short notice ${cut}`);
      });
      await screenshot(s.page, 'trajectory-f-running');
      for (const line of lines.slice(2)) {
        appendFileSync(file, `${line}\n`);
        await new Promise((r) => setTimeout(r, 300));
      }
      await waitFor('every step and the outcome, in the same viewer', async () => {
        const rows = await stepRows(frame);
        const state = (await frame.locator('#episode-state').textContent().catch(() => null)) ?? '';
        const cut = await frame.locator('#cut-short').isVisible().catch(() => false);
        return rows.length === steps && state === 'Resolved' && !cut ? done(true) : pending(`${rows.length} rows, state "${state}", cut-short notice ${cut}`);
      });
      await screenshot(s.page, 'trajectory-f-followed');
    });
  });

  void it('(g) Replay in the viewer re-executes the episode in a terminal and reports no divergence', scenarioTimeout, async () => {
    await scenario('g-replay', async (s) => {
      await showView(s.page, 'Runs');
      await rowLocator(s.page, 'Runs', 'sample-calc-add').click();
      const frame = visibleWebview(s.page);
      await waitFor('the viewer of the first run', async () => {
        const facts = (await frame.locator('#episode-facts').textContent().catch(() => null)) ?? '';
        return /ended: submitted/.test(facts) ? done(true) : pending(`facts "${facts}"`);
      });
      await frame.locator('#replay').click();
      const text = await waitFor('gp trajectory replay to finish in its terminal', async () => {
        const shown = await terminalText(s.page);
        return /No divergence|diverges|could not/.test(shown) ? done(shown) : pending(shown || '(nothing yet)');
      }, { timeoutMs: 120_000 });
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
      await waitForRow(s.page, 'Runs', `${run} spread over two nodes`, (r) => r.label === runRowLabel(run) && /· on 2 nodes ·/.test(r.description), { timeoutMs: 30_000 });
      // Only this run open, so its sample-calc-add is the one row of that name.
      await viewPane(s.page, 'Runs').hover();
      await viewPane(s.page, 'Runs').locator('.pane-header .action-label[aria-label="Collapse All"]').click({ timeout: 10_000 });
      await expandRow(s.page, 'Runs', runRowLabel(run));
      const short = (node: string) => `node ${node.slice(0, 8)}…`;
      await waitForRow(s.page, 'Runs', 'sample-calc-add on the first node', (r) => r.label === 'sample-calc-add' && r.description.endsWith(short(rayNodes[0])));
      await waitForRow(s.page, 'Runs', 'sample-calc-add-unittest on the second node', (r) => r.label === 'sample-calc-add-unittest' && r.description.endsWith(short(rayNodes[1])));
      await rowLocator(s.page, 'Runs', 'sample-calc-add').click();
      const frame = visibleWebview(s.page);
      const facts = await waitFor('the viewer of the hosted episode, naming its node and host', async () => {
        const text = (await frame.locator('#episode-facts').textContent().catch(() => null)) ?? '';
        return text.includes(`${short(rayNodes[0])} (host sandbox-host-1)`) ? done(text) : pending(`facts "${text}"`);
      });
      assert.match(facts, /^agent rule · local backend · node 5c3e9a1f… \(host sandbox-host-1\) · ended: submitted/);
      assert.equal(await frame.locator('#episode-node').getAttribute('title'), `Ray node ${rayNodes[0]}, sandbox host sandbox-host-1`, 'the whole node id is in its tooltip');
      // The same moment in both themes, for a person to check both; each named for the theme shown.
      const themeOf = async () => ((await s.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light';
      const first = await themeOf();
      await screenshot(s.page, `trajectory-h-ray-nodes-${first}`);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      const second = await waitFor('the other colour theme', async () => ((await themeOf()) !== first ? done(await themeOf()) : pending(first)));
      await screenshot(s.page, `trajectory-h-ray-nodes-${second}`);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      await waitFor('the first colour theme again', async () => ((await themeOf()) === first ? done(true) : pending(second)));
    });
  });
});
