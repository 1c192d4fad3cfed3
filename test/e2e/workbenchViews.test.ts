/**
 * The workbench in real VS Code (code-server 4.100.3, the packaged `.vsix`, Debian's Chromium): the
 * Graph Planner views in the activity bar, runs launched from the command palette and the views,
 * watched, stopped, resumed and opened, and a broken config that blocks its launch. The workspace is
 * `fixtures/workbench` plus the sample repository, so the sample tasks run on the local backend in
 * seconds. Each scenario saves `views-<scenario>.png` to `test-artifacts/e2e/`.
 *
 * Run: `bash test/e2e/setup.sh && npm run package && node --import tsx --test test/e2e/workbenchViews.test.ts`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import Docker from 'dockerode';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runReportSchema } from '../../server/src/protocol/runs.js';
import { sandboxLabels } from '../../server/src/protocol/sandbox.js';
import { ownerLabels } from '../../server/src/sandbox/containers.js';
import { errorMessage } from '../../server/src/util/errors.js';
import { startSession, stopSession, type Session } from './harness.js';
import { endLiveRuns, runsNamed, statusOf } from './runFolders.js';
import { loggedMs, Scenarios } from './scenarios.js';
import {
  acceptQuickPick,
  chooseFromContextMenu,
  clickInlineAction,
  clickTitleAction,
  expandRow,
  formatRows,
  isTaskFileRow,
  type RowFit,
  rowFits,
  openFromRow,
  rowLocator,
  type RowName,
  runRowLabel,
  showView,
  taskFileRow,
  terminalText,
  viewPane,
  viewRows,
  waitForNotification,
  waitForRow,
} from './views.js';
import { viewerShown } from './webviews.js';
import { screenshotThemes } from './themes.js';
import { done, pending, waitFor } from './wait.js';
import { focusProblems, openFile, readProblems, runCommand, screenshot } from './workbench.js';

const scenarioTimeout = { timeout: 240_000 };

/** Expands a Tasks file row that a redraw showed collapsed; leaves an expanded one alone. */
async function expandAgain(s: Session, name: RowName): Promise<void> {
  if ((await rowLocator(s.page, 'Tasks', name).getAttribute('aria-expanded')) !== 'true') await expandRow(s.page, 'Tasks', name);
}
const scenarios = new Scenarios();
/**
 * Each scenario starts from a clean screen: no notifications of the one before and no panel, so its
 * screenshot shows what it is about.
 */
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> =>
  scenarios.run(`views-${name}`, async (s) => {
    if (scenarios.activation === 'ready') {
      await runCommand(s.page, 'Notifications: Clear All Notifications');
      if (await s.page.locator('.part.panel').isVisible()) await runCommand(s.page, 'View: Toggle Panel Visibility');
    }
    await body(s);
  });

/**
 * Waits for exactly one new run folder starting with `prefix` besides `before`, with its status.json;
 * returns its name. A run that starts a model server first writes its status later (`timeoutMs`).
 */
async function newRun(s: Session, prefix: string, before: readonly string[], timeoutMs = 60_000): Promise<string> {
  return waitFor(
    `a new ${prefix}* run folder under outputs/`,
    async () => {
      const fresh = runsNamed(s, prefix).filter((n) => !before.includes(n));
      return fresh.length === 1 && existsSync(join(s.workspace, 'outputs', fresh[0] ?? '', 'status.json'))
        ? done(fresh[0] ?? '')
        : pending(`runs: ${runsNamed(s, '').join(', ') || '(none)'}`);
    },
    { timeoutMs },
  );
}

/** Starts a rollout of the open experiment from the command palette, accepting the review list as pre-filled. */
async function startRolloutFromPalette(s: Session): Promise<void> {
  await runCommand(s.page, 'Graph Planner: Start Rollout');
  await acceptQuickPick(s.page, 'the launch review list to offer "Start rollout" first', (first) => /Start rollout/.test(first));
}

/**
 * The empty Containers and Runs views as a newcomer first sees them: one Start Rollout… button in
 * all (the Runs view's), at most one launch button per view, and the Runs view's title bar with its
 * three actions (each a distinct icon with a tooltip), evaluation and training in its "..." menu.
 */
async function assertEmptyViewsWelcome(s: Session): Promise<void> {
  const buttonsOf = async (view: 'Containers' | 'Runs'): Promise<string[]> =>
    viewPane(s.page, view).locator('.welcome-view-content .monaco-button').allTextContents();
  const seen = await waitFor(
    'the empty Runs view to show its welcome button',
    async () => {
      const runs = await buttonsOf('Runs');
      return runs.length > 0 ? done({ runs, containers: await buttonsOf('Containers') }) : pending(`Runs buttons: ${runs.join(', ') || '(none)'}`);
    },
    { timeoutMs: 30_000 },
  );
  const launches = (buttons: string[]) => buttons.filter((b) => /^(Start|Re-run)/.test(b.trim()));
  assert.deepEqual(
    launches(seen.runs).map((b) => b.trim()),
    ['Start Rollout…'],
    JSON.stringify(seen),
  );
  assert.deepEqual(launches(seen.containers), [], `the Containers view links to a rollout in its text, not with a second button: ${JSON.stringify(seen)}`);
  // The title bar's actions show while the pointer is over the view.
  await viewPane(s.page, 'Runs').locator('.pane-header').hover();
  const actions = await viewPane(s.page, 'Runs')
    .locator('.pane-header .actions .action-label')
    .evaluateAll((labels) =>
      labels.map((l) => ({ label: l.getAttribute('aria-label') ?? '', icon: [...l.classList].find((c) => c.startsWith('codicon-')) ?? '' })),
    );
  const named = actions.filter((a) => a.label !== '');
  assert.deepEqual(named.map((a) => a.label).slice(0, 3), ['Start Rollout…', 'Re-run Last', 'Refresh Runs'], JSON.stringify(actions));
  assert.equal(new Set(named.map((a) => a.icon)).size, named.length, `two title actions share an icon: ${JSON.stringify(actions)}`);
  assert.ok(
    named.some((a) => /More Actions/i.test(a.label)),
    `evaluation and training are in the "..." menu: ${JSON.stringify(actions)}`,
  );
}

void describe('Graph Planner workbench views in VS Code (code-server + Chromium)', () => {
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

  void it('(a) shows Tasks, Containers and Runs in the Graph Planner activity-bar container', scenarioTimeout, async () => {
    await scenario('a-three-views', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await s.page.locator('.part.activitybar .action-label[aria-label^="Graph Planner"]').click({ timeout: 30_000 });
      for (const view of ['Tasks', 'Containers', 'Runs'] as const) {
        await viewPane(s.page, view).waitFor({ state: 'visible', timeout: 30_000 });
      }
      // The side bar stays at the width VS Code gives it, in this file's every scenario: its rows are meant to read there (scenario (n)).
      await screenshot(s.page, 'views-a-three-views');
      await assertEmptyViewsWelcome(s);
      await screenshotThemes(s, 'views-a-welcome');
    });
  });

  void it(
    '(b) Start Rollout… from the palette runs the sample tasks to completion, and the Runs view shows the resolved count of its report',
    scenarioTimeout,
    async () => {
      await scenario('b-rollout', async (s) => {
        await openFile(s.page, 'configs/experiments/sample.yaml');
        const before = runsNamed(s, 'sample-rollout');
        await startRolloutFromPalette(s);
        const run = await newRun(s, 'sample-rollout', before);
        await showView(s.page, 'Runs');
        const report = await waitFor(
          'the run to write report.json',
          async () => {
            const path = join(s.workspace, 'outputs', run, 'report.json');
            return existsSync(path) && statusOf(s, run).state === 'finished'
              ? done(runReportSchema.parse(JSON.parse(readFileSync(path, 'utf8'))))
              : pending(statusOf(s, run).state);
          },
          { timeoutMs: 90_000 },
        );
        const row = await waitForRow(
          s.page,
          'Runs',
          `the Runs view to show ${run} finished with ${report.resolved} resolved`,
          (r) => r.label === runRowLabel(run) && r.description.startsWith(`${report.resolved}/3 resolved · finished`),
        );
        assert.match(row.description, / · rollout · rule$/);
        await screenshot(s.page, 'views-b-rollout');
      });
    },
  );

  void it('(c) expanding the run lists its episodes, and opening one shows its trajectory', scenarioTimeout, async () => {
    await scenario('c-episodes', async (s) => {
      const run = runsNamed(s, 'sample-rollout').at(-1) ?? '';
      assert.notEqual(run, '', 'scenario (b) left a run');
      await showView(s.page, 'Runs');
      await expandRow(s.page, 'Runs', runRowLabel(run));
      await waitFor('three episode rows under the run', async () => {
        const rows = await viewRows(s.page, 'Runs');
        const episodes = rows.filter((r) => r.level === 2 && r.label.startsWith('sample-'));
        return episodes.length === 3 ? done(episodes) : pending(formatRows(rows));
      });
      await openFromRow(s.page, 'Runs', 'sample-calc-add', 'the trajectory of sample-calc-add in an editor', async () =>
        (await s.page.locator('.part.editor .tab.active').allTextContents()).some((t) => t.includes('sample-calc-add.jsonl')),
      );
      await waitFor('the trajectory of sample-calc-add in the active editor tab', async () => {
        const active = await s.page.locator('.part.editor .tab.active').allTextContents();
        return active.some((t) => t.includes('sample-calc-add.jsonl')) ? done(true) : pending(`active tabs: ${active.join(', ') || '(none)'}`);
      });
      await screenshot(s.page, 'views-c-episodes');
    });
  });

  void it('(d) a run stopped from the view ends interrupted, and Resume Run finishes it', scenarioTimeout, async () => {
    await scenario('d-stop-resume', async (s) => {
      await openFile(s.page, 'configs/experiments/long.yaml');
      const before = runsNamed(s, 'long-rollout');
      await startRolloutFromPalette(s);
      const run = await newRun(s, 'long-rollout', before);
      await showView(s.page, 'Runs');
      await waitForRow(
        s.page,
        'Runs',
        `${run} running with an episode finished`,
        (r) => r.label === runRowLabel(run) && /^[1-9]\d*\/45 .*· running/.test(r.description),
      );
      // The row is drawn again as each episode ends, so a hover-action click can land on a row
      // that was just replaced; click until the server's answer says the interrupt was sent.
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
      await waitForRow(s.page, 'Runs', `${run} interrupted`, (r) => r.label === runRowLabel(run) && / · interrupted\b/.test(r.description));
      const stopped = statusOf(s, run);
      assert.equal(stopped.state, 'interrupted', 'status.json says interrupted');
      assert.ok(stopped.episodes.finished < 45, `it stopped before the end (${stopped.episodes.finished} of 45 finished)`);
      await screenshot(s.page, 'views-d-interrupted');
      await chooseFromContextMenu(s.page, 'Runs', runRowLabel(run), 'Resume Run');
      await waitForRow(
        s.page,
        'Runs',
        `${run} finished after the resume`,
        (r) => r.label === runRowLabel(run) && /^\d+\/45 resolved · finished/.test(r.description),
        { timeoutMs: 150_000 },
      );
      assert.equal(statusOf(s, run).episodes.finished, 45, 'every episode of the plan ended');
      assert.equal(runsNamed(s, 'long-rollout').length, before.length + 1, 'the resume wrote into the same folder');
      await screenshot(s.page, 'views-d-resumed');
    });
  });

  void it('(f) the Tasks view lists the sample tasks, and running one task from it produces a one-task run', scenarioTimeout, async () => {
    await scenario('f-tasks', async (s) => {
      await openFile(s.page, 'configs/experiments/sample.yaml');
      await showView(s.page, 'Tasks');
      await waitForRow(s.page, 'Tasks', 'the sample dataset with its 3 tasks', (r) => r.label.endsWith('tasks.jsonl') && /3 tasks/.test(r.description));
      await expandRow(s.page, 'Tasks', taskFileRow('datasets/sample/tasks.jsonl'));
      const rows = await waitFor('the three sample tasks', async () => {
        const all = await viewRows(s.page, 'Tasks');
        const tasks = all.filter((r) => r.level === 2);
        return tasks.length === 3 ? done(tasks) : pending(formatRows(all));
      });
      assert.deepEqual(rows.map((r) => r.label).sort(), ['sample-calc-add', 'sample-calc-add-unittest', 'sample-version']);
      await screenshot(s.page, 'views-f-tasks');
      const before = runsNamed(s, 'sample-rollout');
      await clickInlineAction(s.page, 'Tasks', 'sample-version', 'Run Agent on Task');
      await acceptQuickPick(s.page, 'the launch review list for the one task', (first) => /Start rollout/.test(first));
      const run = await newRun(s, 'sample-rollout', before);
      const launch = JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'launch.json'), 'utf8')) as { args: string[] };
      assert.deepEqual(launch.args.slice(launch.args.indexOf('--task'), launch.args.indexOf('--task') + 2), ['--task', 'sample-version']);
      await waitFor('the one-task run to finish', async () => (statusOf(s, run).state === 'finished' ? done(true) : pending(statusOf(s, run).state)), {
        timeoutMs: 90_000,
      });
      assert.equal(statusOf(s, run).episodes.total, 1);
      await showView(s.page, 'Runs');
      await waitForRow(s.page, 'Runs', `${run} finished with its one episode`, (r) => r.label === runRowLabel(run) && r.description.includes('1/1'));
      await screenshot(s.page, 'views-f-task-run');
    });
  });

  void it('(g) the code lens above an experiment starts a rollout, and Re-run Last repeats the last launch', scenarioTimeout, async () => {
    await scenario('g-codelens-rerun', async (s) => {
      await openFile(s.page, 'configs/experiments/sample.yaml');
      const lens = s.page.locator('.part.editor .codelens-decoration a', { hasText: '▶ Rollout' }).first();
      await lens.waitFor({ state: 'visible', timeout: 30_000 });
      await screenshot(s.page, 'views-g-codelens');
      const before = runsNamed(s, 'sample-rollout');
      await lens.click();
      await acceptQuickPick(s.page, 'the launch review list from the code lens', (first) => /Start rollout/.test(first));
      const first = await newRun(s, 'sample-rollout', before);
      await runCommand(s.page, 'Graph Planner: Re-run Last');
      const again = await newRun(s, 'sample-rollout', [...before, first]);
      const args = (run: string) =>
        (JSON.parse(readFileSync(join(s.workspace, 'outputs', run, 'launch.json'), 'utf8')) as { args: string[] }).args.filter(
          (a, i, all) => all[i - 1] !== '--run-dir' && a !== '--run-dir',
        );
      assert.deepEqual(args(again), args(first), 'Re-run Last launches with the same arguments');
    });
  });
  void it('(i) the Tasks filter keeps the matching tasks and says so; clearing it brings the rest back', scenarioTimeout, async () => {
    await scenario('i-task-filter', async (s) => {
      await showView(s.page, 'Tasks');
      await clickTitleAction(s.page, 'Tasks', 'Filter Tasks…');
      await s.page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 10_000 });
      await s.page.keyboard.type('unittest');
      await s.page.keyboard.press('Enter');
      await expandRow(s.page, 'Tasks', taskFileRow('datasets/sample/tasks.jsonl'));
      // The filter redraws the file's node, and a redraw that lands after the expand shows it
      // collapsed (as a refresh from the file watcher can in (k)): expand it again then.
      await waitFor('only the matching task under the file', async () => {
        const rows = await viewRows(s.page, 'Tasks');
        const tasks = rows.filter((r) => r.level === 2).map((r) => r.label);
        if (tasks.length === 1 && tasks[0] === 'sample-calc-add-unittest') return done(true);
        await expandAgain(s, taskFileRow('datasets/sample/tasks.jsonl'));
        return pending(formatRows(rows));
      });
      await screenshot(s.page, 'views-i-task-filter');
      await clickTitleAction(s.page, 'Tasks', 'Clear Task Filter');
      await waitFor('the three tasks again', async () => {
        const rows = await viewRows(s.page, 'Tasks');
        if (rows.filter((r) => r.level === 2).length === 3) return done(true);
        await expandAgain(s, taskFileRow('datasets/sample/tasks.jsonl'));
        return pending(formatRows(rows));
      });
    });
  });

  void it('(j) Run Task Tests… runs gp task test in a terminal named for the task, which grades the task', scenarioTimeout, async () => {
    await scenario('j-task-tests', async (s) => {
      await showView(s.page, 'Tasks');
      await expandRow(s.page, 'Tasks', taskFileRow('datasets/sample/tasks.jsonl'));
      await waitFor('sample-calc-add under its file', async () => {
        const rows = await viewRows(s.page, 'Tasks');
        if (rows.some((r) => r.label === 'sample-calc-add')) return done(true);
        await expandAgain(s, taskFileRow('datasets/sample/tasks.jsonl'));
        return pending(formatRows(rows));
      });
      await chooseFromContextMenu(s.page, 'Tasks', 'sample-calc-add', 'Run Task Tests…');
      await acceptQuickPick(s.page, 'the patch choice, without a patch first', (first) => /Run without a patch/.test(first));
      // The run is checked by the record it writes; what the terminal shows explains a miss.
      const record = await waitFor(
        'gp task test to record its graded run',
        async () => {
          const folders = runsNamed(s, 'tests-');
          const file = folders.map((f) => join(s.workspace, 'outputs', f, 'test_runs.jsonl')).find((f) => existsSync(f));
          const text = file === undefined ? '' : readFileSync(file, 'utf8');
          if (text.includes('"sample-calc-add"')) return done(text);
          return pending(`test folders: ${folders.join(', ') || '(none)'}\nthe terminal shows:\n${(await terminalText(s.page)) || '(nothing)'}`);
        },
        { timeoutMs: 180_000 },
      );
      // The record is written before the verdict is printed: wait for the terminal to show it.
      await waitFor('the terminal to show the verdict', async () => {
        const text = await terminalText(s.page);
        return /RESOLVED_NO/.test(text) ? done(true) : pending(text || '(nothing)');
      });
      const run = JSON.parse(record.trim().split('\n').at(-1) ?? '{}') as { task?: string; grade?: { resolution?: string } };
      assert.deepEqual(
        [run.task, run.grade?.resolution],
        ['sample-calc-add', 'RESOLVED_NO'],
        'without a patch the failing test still fails, and the run says so',
      );
      const tabs = await s.page.locator('.part.panel').textContent();
      await screenshot(s.page, 'views-j-task-tests');
      assert.ok(tabs?.includes('gp task test sample-calc-add'), `the terminal is named for the task: ${tabs ?? ''}`);
    });
  });

  void it(
    '(n) at the side bar’s default width every Tasks and Runs label shows whole, and each row’s count before anything is cut',
    scenarioTimeout,
    async () => {
      await scenario('n-default-width', async (s) => {
        const run = runsNamed(s, 'sample-rollout').at(0) ?? '';
        assert.notEqual(run, '', 'scenario (b) left a run');
        await showView(s.page, 'Tasks');
        await expandRow(s.page, 'Tasks', taskFileRow('datasets/sample/tasks.jsonl'));
        await waitFor('the three sample tasks under their file', async () => {
          const rows = await viewRows(s.page, 'Tasks');
          if (rows.filter((r) => r.level === 2).length === 3) return done(true);
          await expandAgain(s, taskFileRow('datasets/sample/tasks.jsonl'));
          return pending(formatRows(rows));
        });
        await showView(s.page, 'Runs');
        // Runs an earlier scenario left open (one has 45 episodes) would push this run's row out of the list's view.
        await clickTitleAction(s.page, 'Runs', 'Collapse All');
        await expandRow(s.page, 'Runs', runRowLabel(run));
        await waitForRow(s.page, 'Runs', `the episodes of ${run}`, (r) => r.level === 2 && r.label === 'sample-calc-add-unittest');
        // A hovered row shows its inline actions over its text; the pointer rests away from the side bar while rows are measured.
        await s.page.mouse.move(1000, 500);
        const sideBar = await s.page.locator('.part.sidebar').boundingBox();
        const fits = { Tasks: await rowFits(s.page, 'Tasks'), Runs: await rowFits(s.page, 'Runs') };
        const shown = (rows: readonly RowFit[]) =>
          rows
            .map(
              (r) =>
                `${'  '.repeat(r.level - 1)}${r.label}${r.labelCut ? ' [label cut]' : ''} — ${r.description.slice(0, r.descriptionShown)}|${r.description.slice(r.descriptionShown)}`,
            )
            .join('\n');
        const report = `side bar ${Math.round(sideBar?.width ?? 0)} px wide\nTasks:\n${shown(fits.Tasks)}\nRuns:\n${shown(fits.Runs)}`;
        assert.ok(fits.Tasks.length >= 4 && fits.Runs.length >= 4, report);
        for (const row of [...fits.Tasks, ...fits.Runs]) assert.equal(row.labelCut, false, `the label of "${row.label}" is cut:\n${report}`);
        // The first fact of a row is what a person scans for: a file's task count, a run's result, a task's resolved attempts.
        const firstFact = (r: RowFit) => r.description.split(' · ')[0] ?? '';
        const file = fits.Tasks.find((r) => r.level === 1 && r.label === 'tasks.jsonl' && r.description.endsWith('datasets/sample'));
        assert.ok(
          file !== undefined && /^3 tasks$/.test(firstFact(file)) && file.descriptionShown >= firstFact(file).length,
          `the sample file's count shows:\n${report}`,
        );
        const runs = fits.Runs.filter((r) => r.level === 1 && /^\d+\/\d+ resolved$/.test(firstFact(r)));
        assert.ok(runs.length >= 2, `the finished runs lead with their result:\n${report}`);
        for (const row of runs) assert.ok(row.descriptionShown >= firstFact(row).length, `the result of "${row.label}" is cut:\n${report}`);
        await screenshotThemes(s, 'views-n-default-width');
      });
    },
  );

  void it(
    '(k) a hostile dataset: a task id with a control character is refused at its line, and one with shell syntax runs with nothing executed',
    scenarioTimeout,
    async () => {
      await scenario('k-hostile-ids', async (s) => {
        // Written by the test: the id of line 1 is printable shell syntax, which a shell would run if
        // the command line were typed; the id of line 2 ends a quoted word with Ctrl-U and a carriage
        // return, which is how a typed command line was made to run a command of the id's choosing.
        const dir = join(s.workspace, 'datasets', 'hostile');
        mkdirSync(dir, { recursive: true });
        const sandbox = {
          docker_image: 'graph-planner/repoenv-sample:latest',
          workdir: '/testbed',
          local_repo: '../../repos/sample_repo',
          test_command: 'python -m pytest -rA tests/test_calc.py',
        };
        const grading = { FAIL_TO_PASS: ['tests/test_calc.py::test_addition'], PASS_TO_PASS: [] };
        const shellId = "calc;touch pwned-semicolon;$(touch pwned-subst)'`touch pwned-tick`";
        const controlId = "ctl'\u0015\rtouch pwned-control\r";
        writeFileSync(
          join(dir, 'tasks.jsonl'),
          `${JSON.stringify({ task_id: shellId, sandbox, ...grading })}\n${JSON.stringify({ task_id: controlId, sandbox, ...grading })}\n`,
        );
        const markers = ['pwned-semicolon', 'pwned-subst', 'pwned-tick', 'pwned-control'];

        await showView(s.page, 'Tasks');
        // A folder made while the editor runs may reach the file watcher late; a person would refresh.
        await clickTitleAction(s.page, 'Tasks', 'Refresh Tasks');
        await waitForRow(
          s.page,
          'Tasks',
          'the hostile file with one task and one invalid line',
          (r) => isTaskFileRow(r, 'datasets/hostile/tasks.jsonl') && /1 task · 1 invalid/.test(r.description),
          { timeoutMs: 60_000 },
        );
        // A refresh still arriving from the file watcher can redraw the file collapsed: expand again then.
        const rows = await waitFor('the one valid task under the hostile file', async () => {
          const all = await viewRows(s.page, 'Tasks');
          if (all.some((r) => r.label === shellId)) return done(all);
          await expandAgain(s, taskFileRow('datasets/hostile/tasks.jsonl'));
          return pending(formatRows(all));
        });
        assert.ok(!rows.some((r) => r.label.startsWith('ctl')), 'the id with a control character is not offered as a task');

        // The refusal is on line 2, at the id, and says what is wrong.
        await openFile(s.page, 'datasets/hostile/tasks.jsonl');
        await focusProblems(s.page);
        const problem = await waitFor('the control-character id refused in the Problems panel', async () => {
          const ps = await readProblems(s.page);
          const found = ps.find((p) => p.file === 'tasks.jsonl' && /must be printable/.test(p.message));
          return found !== undefined ? done(found) : pending(JSON.stringify(ps));
        });
        assert.equal(problem.line, 2);
        assert.match(problem.message, /control character \\x15 at character 5/);

        await chooseFromContextMenu(s.page, 'Tasks', shellId, 'Run Task Tests…');
        await acceptQuickPick(s.page, 'the patch choice, without a patch first', (first) => /Run without a patch/.test(first));
        const shown = await waitFor(
          'the terminal to show the graded run of the task with shell syntax in its id',
          async () => {
            const text = await terminalText(s.page);
            return /RESOLVED_NO/.test(text) && /\[gp exited/.test(text) ? done(text) : pending(text || '(nothing)');
          },
          { timeoutMs: 180_000 },
        );
        assert.ok(shown.includes(shellId.slice(0, 20)), `the id reached gp as one argument:\n${shown}`);
        assert.match(shown, /\[gp exited with code 1; press any key to close this terminal\]/);
        // The same moment in both themes, for a person to check both; each named for the theme shown.
        const themeOf = async () => (((await s.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light');
        const first = await themeOf();
        // No tooltip of the row the context menu was opened on covers the view.
        await s.page.mouse.move(900, 300);
        await screenshot(s.page, `views-k-hostile-ids-${first}`);
        await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
        const second = await waitFor('the other colour theme', async () => ((await themeOf()) !== first ? done(await themeOf()) : pending(first)));
        await s.page.mouse.move(900, 300);
        await screenshot(s.page, `views-k-hostile-ids-${second}`);
        await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
        await waitFor('the first colour theme again', async () => ((await themeOf()) === first ? done(true) : pending(second)));
        for (const marker of markers) assert.equal(existsSync(join(s.workspace, marker)), false, `${marker} exists: a command from a task id ran`);
        for (const marker of markers)
          assert.equal(existsSync(join(s.workspace, 'datasets', 'hostile', marker)), false, `${marker} exists: a command from a task id ran`);
      });
    },
  );

  void it('(h) the Containers view shows our containers by run with their owner, and reaping removes the orphan', scenarioTimeout, async () => {
    await scenario('h-containers', async (s) => {
      const docker = new Docker();
      await docker.ping().catch((error: unknown) => {
        throw new Error(`This scenario needs a running Docker Engine (bash test/integration/setup.sh starts one): ${errorMessage(error)}`);
      });
      const image = (await docker.listImages()).flatMap((i) => i.RepoTags ?? []).find((t) => t === 'graph-planner/base:latest');
      assert.ok(image !== undefined, 'graph-planner/base:latest is missing; bash test/integration/setup.sh builds it offline');
      const run = `e2e-views-${Date.now()}`;
      const dead = spawnSync('true').pid ?? 1;
      // Made as a sandbox makes them: our labels, one owned by this test process, one whose owner is
      // gone. The live one as a Ray cluster's sandbox host makes it, labelled with its node (issue 22).
      const make = (labels: Record<string, string>) =>
        docker
          .createContainer({ Image: image, Labels: labels, Cmd: ['sh', '-c', `trap 'exit 0' TERM; sleep 600 & wait`] })
          .then(async (c) => (await c.start(), c));
      const node = '5c3e9a1f'.repeat(7);
      // Both name a run folder under the workspace's `outputs/`; a third is another checkout's run, which
      // the view's "this workspace's runs" filter (on by default) hides and counts.
      const runDir = join(s.workspace, 'outputs', run);
      const other = `${run}-elsewhere`;
      const made = [
        await make(ownerLabels(run, 'live-task', new Date(), node, undefined, runDir)),
        await make({ ...ownerLabels(run, 'orphan-task', new Date(), undefined, undefined, runDir), [sandboxLabels.pid]: String(dead) }),
        await make(ownerLabels(other, 'other-task', new Date(), undefined, undefined, join(tmpdir(), 'another-checkout', 'outputs', other))),
      ];
      try {
        await showView(s.page, 'Containers');
        const description = () => viewPane(s.page, 'Containers').locator('.pane-header .description').textContent();
        await waitFor(
          "the view to say it shows this workspace's runs and hides the others",
          async () => {
            const text = (await description()) ?? '';
            return /^this workspace's runs · \d+ hidden$/.test(text) ? done(text) : pending(text);
          },
          { timeoutMs: 30_000 },
        );
        await waitForRow(s.page, 'Containers', `the group of run ${run}`, (r) => r.label === runRowLabel(run), { timeoutMs: 30_000 });
        assert.ok(!(await viewRows(s.page, 'Containers')).some((r) => r.label === runRowLabel(other)), 'the other checkout’s run is hidden');
        await screenshotThemes(s, 'views-h-containers-filtered');
        await clickTitleAction(s.page, 'Containers', "Show Every Run's Containers");
        await waitForRow(s.page, 'Containers', 'the other checkout’s run once every run is shown', (r) => r.label === runRowLabel(other), {
          timeoutMs: 30_000,
        });
        assert.equal(await description(), "every run's containers");
        await screenshot(s.page, 'views-h-containers-all');
        await clickTitleAction(s.page, 'Containers', "Show Only This Workspace's Runs");
        await waitFor('the other run hidden again', async () =>
          (await viewRows(s.page, 'Containers')).some((r) => r.label === runRowLabel(other)) ? pending('still shown') : done(true),
        );
        await waitForRow(s.page, 'Containers', `the group of run ${run}`, (r) => r.label === runRowLabel(run) && /2 containers/.test(r.description), {
          timeoutMs: 30_000,
        });
        await expandRow(s.page, 'Containers', run);
        await waitForRow(
          s.page,
          'Containers',
          'the orphan marked as such, with no node',
          (r) => r.label === 'orphan-task' && /running/.test(r.description) && /owner gone/.test(r.description) && !/node/.test(r.description),
          { timeoutMs: 30_000 },
        );
        await waitForRow(
          s.page,
          'Containers',
          'the live container with its Ray node',
          (r) => r.label === 'live-task' && !/owner gone/.test(r.description) && r.description.includes(`· node ${node.slice(0, 8)}… ·`),
        );
        await screenshot(s.page, 'views-h-containers');
        await clickTitleAction(s.page, 'Containers', 'Reap Orphaned Containers');
        const confirm = s.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Remove' }).first();
        await confirm.waitFor({ state: 'visible', timeout: 10_000 });
        await confirm.click();
        await waitFor(
          'the orphan to leave the view while the live container stays',
          async () => {
            const rows = await viewRows(s.page, 'Containers');
            return !rows.some((r) => r.label === 'orphan-task') && rows.some((r) => r.label === 'live-task') ? done(true) : pending(formatRows(rows));
          },
          { timeoutMs: 30_000 },
        );
        const left = await docker.listContainers({ all: true, filters: { label: [`${sandboxLabels.run}=${run}`] } });
        // Reaping acts on every orphan, shown or not; this run's live container stays.
        assert.deepEqual(
          left.map((c) => c.Labels[sandboxLabels.task]),
          ['live-task'],
          'the engine holds only the live container',
        );
        await screenshot(s.page, 'views-h-reaped');
      } finally {
        for (const c of made) await c.remove({ force: true }).catch(() => undefined);
      }
    });
  });

  void it(
    '(m) Start Rollout… with the model agent on the embedded model: the run starts and stops the model itself, and its episode opens with the model’s replies and protocol errors marked',
    { timeout: 420_000 },
    async () => {
      await scenario('m-model-rollout', async (s) => {
        await openFile(s.page, 'configs/experiments/model.yaml');
        const before = runsNamed(s, 'model-rollout');
        await startRolloutFromPalette(s);
        // The run loads the model before it writes its status: seconds on an idle machine, a minute or more on a busy one.
        const run = await newRun(s, 'model-rollout', before, 240_000);
        await showView(s.page, 'Runs');
        const report = await waitFor(
          'the model run to write report.json',
          async () => {
            const path = join(s.workspace, 'outputs', run, 'report.json');
            return existsSync(path) && statusOf(s, run).state === 'finished'
              ? done(runReportSchema.parse(JSON.parse(readFileSync(path, 'utf8'))))
              : pending(statusOf(s, run).state);
          },
          { timeoutMs: 360_000 },
        );
        // The config's own dataset, even when the workspace holds others that sort first (scenario (k)'s).
        assert.deepEqual(report.tasks.map((t) => t.task_id).sort(), ['sample-calc-add', 'sample-calc-add-unittest', 'sample-version']);
        assert.ok(report.model, 'the report has the model figures');
        assert.equal(report.model.fallback_enabled, false);
        assert.ok(report.model.calls >= 3, `the model answered every episode (${report.model.calls} calls)`);
        assert.ok(statusOf(s, run).model, 'status.json carries the model figures for the Runs view');
        const row = await waitForRow(s.page, 'Runs', `${run} finished`, (r) => r.label === runRowLabel(run) && /(^| · )finished\b/.test(r.description));
        assert.match(row.description, /rollout · model/);
        await expandRow(s.page, 'Runs', runRowLabel(run));
        await openFromRow(s.page, 'Runs', 'sample-calc-add', 'the trajectory viewer of sample-calc-add', viewerShown(s.page));
        const frame = s.page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');
        await waitFor(
          'the model episode in the trajectory viewer',
          async () => {
            const facts =
              (await frame
                .locator('#episode-facts')
                .textContent()
                .catch(() => null)) ?? '';
            return /agent model SmolLM2-135M-Instruct/.test(facts) ? done(true) : pending(`facts "${facts}"`);
          },
          { timeoutMs: 60_000 },
        );
        await frame.locator('#step-list .step[data-step="1"]').click();
        const detail = (await frame.locator('article.detail').textContent()) ?? '';
        assert.match(detail, /Model reply/, 'the model’s own reply is shown');
        assert.match(detail, /model call: \d+ prompt → \d+ completion tokens/);
        const trajectory = readFileSync(join(s.workspace, 'outputs', run, 'trajectories', 'sample-calc-add.jsonl'), 'utf8');
        const protocolSteps = trajectory.split('\n').filter((l) => l.includes('"protocol_error"')).length;
        const markers = await frame.locator('#step-list .marker.error[title^="Protocol error"]').count();
        assert.equal(markers, protocolSteps, 'every protocol error of the trajectory is marked in the step list');
        // The same moment in both themes, for a person to check both.
        const themeOf = async () => (((await s.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').includes('vs-dark') ? 'dark' : 'light');
        const first = await themeOf();
        await screenshot(s.page, `views-m-model-episode-${first}`);
        await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
        const second = await waitFor('the other colour theme', async () => ((await themeOf()) !== first ? done(await themeOf()) : pending(first)));
        await screenshot(s.page, `views-m-model-episode-${second}`);
        await runCommand(s.page, 'Preferences: Toggle between Light/Dark Themes');
        await waitFor('the first colour theme again', async () => ((await themeOf()) === first ? done(true) : pending(second)));
      });
    },
  );

  void it(
    '(e) a broken experiment YAML blocks the launch: its error comes first in the review list and opens its place; the Problems panel lists it',
    scenarioTimeout,
    async () => {
      await scenario('e-blocked', async (s) => {
        await openFile(s.page, 'configs/experiments/broken.yaml');
        await runCommand(s.page, 'Graph Planner: Start Rollout');
        // The review list puts the error first (test/e2e/launchFeedback.test.ts checks the rest of it).
        await acceptQuickPick(s.page, 'the review list to offer the error first', (first) => /negative-penalty/.test(first));
        await focusProblems(s.page);
        const problems = await waitFor('the negative-penalty error in the Problems panel', async () => {
          const ps = await readProblems(s.page);
          return ps.some((p) => p.file === 'broken.yaml' && p.code === 'preflight/negative-penalty') ? done(ps) : pending(JSON.stringify(ps));
        });
        assert.ok(problems.length > 0);
        assert.deepEqual(runsNamed(s, 'broken'), [], 'no run folder was made');
        await screenshot(s.page, 'views-e-blocked');
      });
    },
  );
});
