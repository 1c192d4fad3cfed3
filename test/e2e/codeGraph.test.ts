/**
 * An episode on the code graph in real VS Code (code-server + Chromium), on an episode of a real
 * `gp rollout` of the sample tasks (local backend; the sandbox is gone before the view opens) whose
 * dataset has its gold patches beside it: (a) the trajectory viewer's "Code graph" button shows the
 * graph in place of the step's detail, with the gold nodes marked, the distance to gold and the
 * recall, in a light and a dark theme; (b) selecting a step in the viewer moves the graph to that
 * step, and its slider steps it on its own; (c) "Open beside" opens it in a panel that follows the
 * viewer's selection, where clicking a node opens what the episode recorded of its file;
 * (d) the metrics page of a training run shows its localisation recall per training step.
 */
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { startSession, stopSession, type Session } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { chooseFromContextMenu, expandRow, openFromRow, runRowLabel, showView, waitForRow, widenSideBar } from './views.js';
import { screenshotThemes } from './themes.js';
import { done, pending, waitFor } from './wait.js';
import { visibleWebviewWith, webviewWith } from './webviews.js';
import { sampleRollout } from './sampleRuns.js';
import { runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 180_000 };
const scenarios = new Scenarios();
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> =>
  scenarios.run(`code-graph-${name}`, async (s) => {
    if (scenarios.activation === 'ready') await runCommand(s.page, 'Notifications: Clear All Notifications');
    await body(s);
  });

let run = '';

/** Each visible webview's page: VS Code hosts each webview in an iframe whose own iframe holds our HTML. */
const webviews = (page: Page): FrameLocator => page.frameLocator('iframe.webview.ready >> visible=true');

const text = async (frame: FrameLocator, selector: string): Promise<string> =>
  (await frame
    .locator(selector)
    .first()
    .textContent()
    .catch(() => null)) ?? '';

void describe('An episode on the code graph in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({
        fixture: 'workbench',
        extraFiles: {
          'docker/repoenv_sample/sample_repo': 'repos/sample_repo',
          'datasets/sample/gold_predictions_tasks.jsonl': 'datasets/sample/gold_predictions_tasks.jsonl',
        },
      });
      run = sampleRollout(scenarios.session);
    },
    { timeout: 300_000 },
  );

  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('(a) the viewer’s Code graph button shows the episode’s subgraph in the viewer with the gold nodes marked', scenarioTimeout, async () => {
    await scenario('a-open', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await showView(s.page, 'Runs');
      await widenSideBar(s.page, 60);
      await expandRow(s.page, 'Runs', runRowLabel(run));
      await openFromRow(
        s.page,
        'Runs',
        'sample-calc-add',
        'the trajectory viewer of sample-calc-add',
        async () => (await visibleWebviewWith(s.page, '#code-graph')) !== undefined,
      );
      const viewer = await webviewWith(s.page, '#code-graph', 'the trajectory viewer with its Code graph button');
      await waitFor('the viewer to show sample-calc-add', async () =>
        (await text(viewer, '#episode-state')) === 'Resolved' ? done(true) : pending(await text(viewer, '#episode-state')),
      );
      // The side bar takes room the graph needs; a person would close it too.
      await runCommand(s.page, 'View: Close Primary Side Bar');
      await viewer.locator('#code-graph').click();
      const graph = viewer;
      await waitFor('the code graph in place of the step’s detail', async () =>
        (await graph.locator('#detail #legend').count()) > 0 ? done(true) : pending('no legend in #detail'),
      );
      assert.equal(await text(viewer, '#code-graph'), 'Step detail', 'the button now goes back to the step’s detail');
      // Fitted on open: the whole drawing inside its canvas and the window, with no scrolling (webview/src/codeGraph/fitScale.ts).
      const window = s.page.viewportSize() ?? { width: 1440, height: 1000 };
      const placement = async () => {
        const drawing = await graph.locator('#graph svg.graph').boundingBox();
        const canvas = await graph.locator('#graph').boundingBox();
        if (drawing === null || canvas === null) return { inside: false, seen: 'not drawn yet' };
        const inside =
          drawing.x >= canvas.x - 1 &&
          drawing.x + drawing.width <= canvas.x + canvas.width + 1 &&
          drawing.y >= canvas.y - 1 &&
          drawing.y + drawing.height <= window.height + 1;
        return { inside, seen: `drawing ${JSON.stringify(drawing)} in canvas ${JSON.stringify(canvas)}, window ${window.height} px high` };
      };
      const fitted = await waitFor('the whole graph in view on open', async () => {
        const now = await placement();
        return now.inside ? done(now.seen) : pending(now.seen);
      });
      // Zoomed in past the pane and back with Fit.
      for (let i = 0; i < 8 && (await placement()).inside; i++) await graph.locator('#zoom-in').click();
      assert.equal((await placement()).inside, false, `zooming in takes the graph past its pane (${fitted})`);
      await graph.locator('#zoom-fit').click();
      await waitFor('Fit to show the whole graph again', async () => {
        const now = await placement();
        return now.inside ? done(true) : pending(now.seen);
      });
      await screenshotThemes(s, 'code-graph-a-fitted');
      const gold = graph.locator('g.node[data-id="func:app/calc.py#add"]');
      const marksOf = async () =>
        (await gold
          .locator('text.marks')
          .textContent()
          .catch(() => null)) ?? '';
      // The view opens at the step the viewer has selected: step 1, which expanded add.
      await waitFor('the view at the viewer’s step 1, add gold and expanded', async () => {
        const now = await text(graph, '#step-now');
        return now.startsWith('Step 1 of 4') && (await marksOf()) === '★↗' ? done(true) : pending(`"${now}", marks "${await marksOf()}"`);
      });
      const slider = graph.locator('#step-slider');
      await slider.focus();
      await slider.press('End');
      await waitFor('the last step: add gold, edited, read and expanded', async () =>
        (await marksOf()) === '★✎◉↗' ? done(true) : pending(`marks "${await marksOf()}"`),
      );
      assert.equal(await gold.locator('rect.gold').count(), 1, 'the gold function has the gold outline');
      assert.equal(await graph.locator('g.node[data-id="file:app/calc.py"] rect.gold').count(), 1, 'its file is gold too');
      assert.equal(await graph.locator('g.node[data-id="func:app/calc.py#mul"] rect.gold').count(), 0, 'mul is not gold');
      assert.match((await gold.getAttribute('class')) ?? '', /\bedited\b/);
      assert.match(await text(graph, '#recall'), /Files: saw 1\/1, read 1\/1, edited 1\/1.*Functions: saw 1\/1, read 1\/1, edited 1\/1/);
      assert.equal(await text(graph, '#distance'), 'gold seen (0 hops)');
      assert.match(await text(graph, 'header.top'), /Gold: 1 file, 1 definition \(repository|pre-image\)/);
      const themeOf = async () => (((await s.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light');
      const first = await themeOf();
      await screenshot(s.page, `code-graph-a-${first}`);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      const second = await waitFor('the other colour theme', async () => ((await themeOf()) !== first ? done(await themeOf()) : pending(first)));
      await screenshot(s.page, `code-graph-a-${second}`);
      await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
      await waitFor('the first colour theme again', async () => ((await themeOf()) === first ? done(true) : pending(second)));
    });
  });

  void it('(b) the graph follows the step the viewer selects, and its slider steps on its own', scenarioTimeout, async () => {
    await scenario('b-steps', async (s) => {
      const viewer = await webviewWith(s.page, '#step-list', 'the trajectory viewer');
      await viewer.locator('#step-list .step[data-step="2"]').click();
      const gold = viewer.locator('g.node[data-id="func:app/calc.py#add"]');
      await waitFor('the graph at step 2: add read, not edited yet', async () => {
        const now = await text(viewer, '#step-now');
        const marks =
          (await gold
            .locator('text.marks')
            .textContent()
            .catch(() => null)) ?? '';
        return now.startsWith('Step 2 of 4') && marks === '★◉↗' ? done(true) : pending(`"${now}", marks "${marks}"`);
      });
      // Back to reset with the slider: only the issue's hints have been seen, the tests' nodes not yet.
      const slider = viewer.locator('#step-slider');
      await slider.focus();
      await slider.press('Home');
      await waitFor('the graph after reset', async () =>
        (await text(viewer, '#step-now')).startsWith('After reset') ? done(true) : pending(await text(viewer, '#step-now')),
      );
      assert.match((await viewer.locator('g.node[data-id="func:tests/test_calc.py#test_addition"]').getAttribute('class')) ?? '', /\bunseen\b/);
      assert.match((await gold.getAttribute('class')) ?? '', /\bseen\b/);
      await screenshot(s.page, 'code-graph-b-reset');
    });
  });

  void it('(c) Open beside shows the graph in a panel that follows the viewer, and a node opens its recorded file', scenarioTimeout, async () => {
    await scenario('c-beside', async (s) => {
      const viewer = await webviewWith(s.page, '#step-list', 'the trajectory viewer');
      await viewer.locator('#code-graph-beside').click();
      await loggedMs(s, 'the code-graph panel’s first paint', /Code graph: firstPaint of \S+ in (\d+(?:\.\d+)?) ms/);
      // The viewer's pane and the panel both have a legend; the panel's page has no step list.
      const panel = await waitFor('the code-graph panel', async () => {
        const count = await s.page.locator('iframe.webview.ready >> visible=true').count();
        for (let i = 0; i < count; i++) {
          const frame = webviews(s.page).nth(i).frameLocator('iframe#active-frame');
          if (
            (await frame
              .locator('#legend')
              .count()
              .catch(() => 0)) > 0 &&
            (await frame
              .locator('#step-list')
              .count()
              .catch(() => 0)) === 0
          )
            return done(frame);
        }
        return pending(`${count} visible webviews, none is the panel`);
      });
      await viewer.locator('#step-list .step[data-step="3"]').click();
      await waitFor('the panel at the viewer’s step 3', async () =>
        (await text(panel, '#step-now')).startsWith('Step 3 of 4') ? done(true) : pending(await text(panel, '#step-now')),
      );
      await panel.locator('g.node[data-id="func:app/calc.py#mul"]').click();
      await waitFor('an editor tab for calc.py', async () =>
        (await s.page.locator('.tab[aria-label*="calc.py"]').count()) > 0 ? done(true) : pending('no calc.py tab'),
      );
      await screenshot(s.page, 'code-graph-c-beside');
    });
  });

  void it('(d) a training run’s metrics page charts localisation recall per training step', scenarioTimeout, async () => {
    await scenario('d-metrics', async (s) => {
      // The rollout's episodes as a training run's: a metrics line per step and each step's sample, as the trainer writes them.
      const copy = 'training-like-run';
      const from = join(s.workspace, 'outputs', run);
      const to = join(s.workspace, 'outputs', copy);
      cpSync(from, to, { recursive: true });
      const sampled = (step: number, episode: string) => ({
        ts: '2026-11-23T00:00:00Z',
        attempt: 1,
        step,
        total: 1,
        episodes: [
          {
            episode_id: episode,
            task_id: episode,
            total_reward: 1,
            resolved: true,
            steps: 4,
            termination_reason: 'submitted',
            trajectory: `trajectories/${episode}.jsonl`,
          },
        ],
      });
      writeFileSync(
        join(to, 'step_samples.jsonl'),
        [sampled(1, 'sample-version'), sampled(2, 'sample-calc-add'), sampled(3, 'sample-calc-add-unittest')].map((l) => JSON.stringify(l)).join('\n') + '\n',
      );
      writeFileSync(
        join(to, 'metrics.jsonl'),
        [1, 2, 3]
          .map((step) => JSON.stringify({ source: 'verl', ts: '2026-11-23T00:00:00Z', attempt: 1, step, data: { 'critic/score/mean': step / 3 } }))
          .join('\n') + '\n',
      );
      await showView(s.page, 'Runs');
      await waitForRow(s.page, 'Runs', `${copy} with its metrics`, (r) => r.label === runRowLabel(copy), { timeoutMs: 30_000 });
      await chooseFromContextMenu(s.page, 'Runs', runRowLabel(copy), 'Show Metrics');
      const page = await webviewWith(s.page, '#localisation h2', 'the metrics page with its localisation section');
      await waitFor('the localisation charts with their steps', async () => {
        const points = await page
          .locator('#chart-recall-functions')
          .getAttribute('data-points')
          .catch(() => null);
        return points === '6' ? done(true) : pending(`data-points ${points ?? '(none)'}`);
      });
      assert.match(await text(page, '#localisation .summary'), /3 episodes read, 2 with gold/);
      await page.locator('#localisation').scrollIntoViewIfNeeded();
      await screenshot(s.page, 'code-graph-d-metrics');
    });
  });
});
