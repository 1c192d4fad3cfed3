/**
 * The extension in real VS Code: code-server 4.100.3 with `dist/graph-planner.vsix` installed,
 * driven in Debian's Chromium. One code-server serves the whole file and the scenarios run in
 * order on one copy of `fixtures/workspace`. Each scenario saves a screenshot to
 * `test-artifacts/e2e/`; a failing one saves `<scenario>-failed.png` and its error carries what
 * the Problems panel, the editor and the extension's log showed.
 *
 * Run: `bash test/e2e/setup.sh && npm run package && node --import tsx --test test/e2e/editor.test.ts`.
 * GP_E2E_KEEP=1 keeps the session's temp folder (workspace, logs) for a post-mortem.
 */
import assert from 'node:assert/strict';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { artifactsDir, codeServerVersion, saveTimings, startSession, stopSession, type Session } from './harness.js';
import { loggedMs, Scenarios } from './scenarios.js';
import { screenshotThemes } from './themes.js';
import { done, pending, waitFor } from './wait.js';
import type { FrameLocator } from 'playwright-core';
import {
  chooseCodeAction,
  cursorPosition,
  editorText,
  focusEditor,
  focusProblems,
  formatProblems,
  goTo,
  openFile,
  runCommand,
  screenshot,
  filterProblems,
  triggerSuggest,
  waitForCursor,
  waitForEditorText,
  waitForProblems,
  type Problem,
} from './workbench.js';

const brokenYaml = 'configs/experiments/broken.yaml';
const tasksJsonl = 'datasets/tasks.jsonl';
const flipSignFix = 'Flip the sign: set env.failure_penalty to 1';
/**
 * The overview's page: VS Code hosts a webview in an iframe whose own iframe (`#active-frame`)
 * holds our HTML.
 */
const overviewFrame = (s: Session): FrameLocator => s.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
/** Diagnostics come from a language server that starts with the extension; give it room on CI. */
const diagnosticsTimeout = { timeoutMs: 60_000 };
const scenarioTimeout = { timeout: 180_000 };

const ours = (p: Problem): boolean => p.source === 'graph-planner';
const inFile =
  (name: string) =>
  (p: Problem): boolean =>
    p.file === name;
const hasCode =
  (code: string) =>
  (p: Problem): boolean =>
    ours(p) && p.code === code;

const scenarios = new Scenarios();
const timings = scenarios.timings;
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> => scenarios.run(name, body);

/**
 * What a person sees of the overview at the panel's default width (beside the editor in a
 * 1440-pixel window): nothing wider than the panel, sections under headings, and each setting's key
 * and value in two columns with the key at the left edge of its column, its text aligned left.
 */
async function assertOverviewLayout(frame: FrameLocator): Promise<void> {
  const layout = await frame.locator('body').evaluate((body) => {
    const doc = body.ownerDocument;
    const rows = [...doc.querySelectorAll('.kv-row')].map((row) => {
      const dt = row.querySelector('dt')?.getBoundingClientRect();
      const dd = row.querySelector('dd')?.getBoundingClientRect();
      const key = row.querySelector('dt > *');
      const keyBox = key?.getBoundingClientRect();
      return {
        key: row.getAttribute('data-key') ?? '',
        dtLeft: dt?.left ?? -1,
        dtRight: dt?.right ?? -1,
        ddLeft: dd?.left ?? -1,
        keyLeft: keyBox?.left ?? -1,
        align: key === null || key === undefined ? '' : (doc.defaultView?.getComputedStyle(key).textAlign ?? ''),
      };
    });
    return {
      width: doc.documentElement.clientWidth,
      scrollWidth: doc.documentElement.scrollWidth,
      sections: [...doc.querySelectorAll('h2')].map((h) => h.textContent ?? ''),
      groups: [...doc.querySelectorAll('h3.section-name')].map((h) => h.textContent ?? ''),
      rows,
    };
  });
  const seen = JSON.stringify({ ...layout, rows: layout.rows.slice(0, 4) });
  assert.ok(layout.width >= 360 && layout.width <= 700, `the overview's default width is a side panel's: ${seen}`);
  assert.ok(layout.scrollWidth <= layout.width + 1, `nothing is wider than the panel: ${seen}`);
  assert.deepEqual(layout.sections, ['Preflight', 'GPU layout', 'Verl settings'], seen);
  assert.ok(layout.groups.includes('paths') && layout.groups.includes('resources'), seen);
  assert.ok(layout.rows.length >= 20, seen);
  for (const r of layout.rows) {
    assert.ok(['left', 'start'].includes(r.align), `${r.key}'s key is aligned ${r.align}, not left: ${seen}`);
    assert.ok(Math.abs(r.keyLeft - r.dtLeft) < 1, `${r.key}'s key does not start at its column's left edge: ${JSON.stringify(r)}`);
    assert.ok(r.ddLeft >= r.dtRight - 1, `${r.key}'s value is not in a second column beside its key: ${JSON.stringify(r)}`);
  }
}

void describe('Graph Planner in VS Code (code-server + Chromium)', () => {
  before(
    async () => {
      await rm(artifactsDir, { recursive: true, force: true });
      scenarios.session = await startSession();
      timings['chromium'] = scenarios.session.browser.version();
      timings['workbenchStartupMs'] = scenarios.session.startupMs;
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      try {
        if (Object.keys(timings).length > 0) {
          await saveTimings({ codeServer: codeServerVersion, measuredAt: new Date().toISOString(), ...timings });
        }
      } finally {
        await stopSession(scenarios.session);
      }
      const files = await readdir(artifactsDir).catch(() => []);
      if (files.length > 0) console.log(`e2e artifacts in ${artifactsDir}: ${files.sort().join(', ')}`);
    },
    { timeout: 60_000 },
  );

  void it('activates in the workspace and starts its language server', scenarioTimeout, async () => {
    await scenario('activation', async (s) => {
      scenarios.activation = 'failed';
      timings['activationMs'] = await loggedMs(s, 'Graph Planner activated in', /Graph Planner activated in\D*?(\d+(?:\.\d+)?)\s*ms/);
      timings['serverReadyMs'] = await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
      await screenshot(s.page, 'activation');
    });
  });

  void it('lists the unknown key, the negative penalty and the wrong type of a broken experiment config', scenarioTimeout, async () => {
    await scenario('a-problems', async (s) => {
      const opened = Date.now();
      await openFile(s.page, brokenYaml);
      await focusProblems(s.page);
      await filterProblems(s.page, '**/broken.yaml');
      const codes = ['schema/unknown-key', 'preflight/negative-penalty', 'schema/type'];
      const problems = await waitForProblems(
        s.page,
        `the three broken.yaml problems (${codes.join(', ')})`,
        (ps) => codes.every((c) => ps.some((p) => inFile('broken.yaml')(p) && hasCode(c)(p))),
        diagnosticsTimeout,
      );
      timings['firstDiagnosticsMs'] = Date.now() - opened;
      const seen = formatProblems(problems);
      const find = (code: string): Problem => {
        const p = problems.find((x) => inFile('broken.yaml')(x) && hasCode(code)(x));
        assert.ok(p !== undefined, `no ${code} problem in:\n${seen}`);
        return p;
      };
      const unknownKey = find('schema/unknown-key');
      // An unknown key is an error: its setting would silently keep its default (config/validate.ts).
      assert.equal(unknownKey.severity, 'error', seen);
      assert.match(unknownKey.message, /Did you mean 'max_steps'\?/, seen);
      assert.equal(unknownKey.line, 4, `max_step's problem should be on line 4:\n${seen}`);
      const penalty = find('preflight/negative-penalty');
      assert.equal(penalty.severity, 'error', seen);
      assert.equal(penalty.line, 5, seen);
      const type = find('schema/type');
      assert.equal(type.severity, 'error', seen);
      assert.equal(type.line, 7, `the type problem should be on the value \`two\` (line 7):\n${seen}`);
      await screenshot(s.page, 'a-problems');
    });
  });

  void it('completes max_steps on a new line in the env section', scenarioTimeout, async () => {
    await scenario('b-completion', async (s) => {
      const { page } = s;
      await focusEditor(page);
      // A new line after `max_step: 6` inherits its two-space indentation: inside `env:`.
      await goTo(page, 4, 1);
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      await waitForCursor(page, 5, 3);
      try {
        // Only the word-based fallback (the document's own words) shows when the server offers none.
        const offered = await triggerSuggest(page, 'max_steps');
        assert.ok(offered.includes('max_steps'));
        await screenshot(page, 'b-completion');
      } finally {
        // Leave the file as it is on disk for the next scenario, also when this one failed.
        await page.keyboard.press('Escape');
        await runCommand(page, 'File: Revert File');
        await waitForEditorText(page, 'the editor to show broken.yaml as on disk again', (t) => /max_step: 6\n {2}failure_penalty/.test(t));
      }
    });
  });

  void it('flips the sign of a negative failure_penalty with its quick fix', scenarioTimeout, async () => {
    await scenario('c-quick-fix', async (s) => {
      const { page } = s;
      await focusProblems(page);
      await filterProblems(page, '**/broken.yaml');
      const [penalty] = (
        await waitForProblems(page, 'the negative-penalty problem', (ps) => ps.some(hasCode('preflight/negative-penalty')), diagnosticsTimeout)
      ).filter(hasCode('preflight/negative-penalty'));
      assert.ok(penalty !== undefined);
      await focusEditor(page);
      // The cursor goes where the diagnostic starts, which is on `failure_penalty`.
      await goTo(page, penalty.line, penalty.column);
      await chooseCodeAction(page, flipSignFix);
      const flipped = /^ {2}failure_penalty: 1(\.0)?\s*$/m;
      await waitForEditorText(page, 'the editor to show `failure_penalty: 1`', (t) => flipped.test(t));
      await page.keyboard.press('Control+S');
      const file = join(s.workspace, brokenYaml);
      await waitFor('broken.yaml on disk to have `failure_penalty: 1`', async () => {
        const text = await readFile(file, 'utf8');
        return flipped.test(text) ? done(true) : pending(text);
      });
      await focusProblems(page);
      const after = await waitForProblems(
        page,
        'the negative-penalty problem to go away while the others stay',
        (ps) => !ps.some(hasCode('preflight/negative-penalty')) && ps.some(hasCode('schema/unknown-key')),
        diagnosticsTimeout,
      );
      assert.ok(after.some(hasCode('schema/type')), `the schema/type problem should remain:\n${formatProblems(after)}`);
      assert.match(await editorText(page), /max_step: 6/);
      await screenshot(page, 'c-quick-fix');
    });
  });

  void it('reports broken JSON on line 2 of a dataset and nothing on its valid lines', scenarioTimeout, async () => {
    await scenario('d-jsonl', async (s) => {
      const { page } = s;
      await openFile(page, tasksJsonl);
      await focusProblems(page);
      await filterProblems(page, '**/tasks.jsonl');
      const problems = await waitForProblems(
        page,
        'a jsonl/syntax problem on line 2 of tasks.jsonl',
        (ps) => ps.some((p) => inFile('tasks.jsonl')(p) && hasCode('jsonl/syntax')(p) && p.line === 2),
        diagnosticsTimeout,
      );
      const inTasks = problems.filter(inFile('tasks.jsonl'));
      const syntax = inTasks.find((p) => hasCode('jsonl/syntax')(p));
      assert.equal(syntax?.severity, 'error', formatProblems(inTasks));
      const onValidLines = inTasks.filter((p) => p.line === 1 || p.line === 3);
      assert.deepEqual(onValidLines, [], `lines 1 and 3 are valid tasks, yet:\n${formatProblems(onValidLines)}`);
      await screenshot(page, 'd-jsonl');
    });
  });

  void it(
    'shows the Verl settings and the live preflight findings of broken.yaml in the experiment overview, laid out for its default width',
    scenarioTimeout,
    async () => {
      await scenario('e-overview', async (s) => {
        const { page } = s;
        await openFile(page, brokenYaml);
        await runCommand(page, 'Graph Planner: Show Experiment Overview');
        const frame = overviewFrame(s);
        const textOf = async (selector: string): Promise<string> => {
          const found = frame.locator(selector);
          return (await found.count()) === 0 ? '' : ((await found.first().textContent({ timeout: 2_000 })) ?? '');
        };
        const gpusRow = await waitFor(
          'the overview to show the resources.num_gpus row of the Verl settings',
          async () => {
            const text = await textOf('[data-key="resources.num_gpus"]');
            return text.includes('trainer.n_gpus_per_node')
              ? done(text)
              : pending(`row text: ${text || '(no row)'}; page: ${(await textOf('#root')).slice(0, 400)}`);
          },
          diagnosticsTimeout,
        );
        assert.match(gpusRow, /default/, 'num_gpus is not in broken.yaml, so its value comes from the defaults');
        const tpRow = await textOf('[data-key="parallel.tensor_parallel_planner"]');
        assert.match(tpRow, /actor_rollout_ref\.rollout\.tensor_model_parallel_size/);
        assert.match(tpRow, /file’s value is invalid/, `tensor_parallel_planner: two is rejected, so the default runs: ${tpRow}`);
        // Scenario c fixed and saved the penalty; typing it back checks that the overview follows edits.
        await focusEditor(page);
        await goTo(page, 5, 1);
        await page.keyboard.press('End');
        await page.keyboard.press('Shift+Home');
        await page.keyboard.type('failure_penalty: -1.0');
        const penalty = 'button.finding[data-code="preflight/negative-penalty"]';
        const fixButton = `button.fix[data-code="preflight/negative-penalty"]`;
        const message = await waitFor(
          'the overview to list the negative-penalty finding with its quick fix',
          async () => {
            const text = await textOf(penalty);
            const fix = await textOf(fixButton);
            return /rewards failure/.test(text) && fix.includes(flipSignFix)
              ? done(text)
              : pending(`finding: ${text || '(none)'}; fix: ${fix || '(none)'}; findings: ${await textOf('ul.findings')}`);
          },
          diagnosticsTimeout,
        );
        assert.match(message, /^Error/, message);
        try {
          await assertOverviewLayout(frame);
          // The Problems panel that scenario a opened would cover half the overview in the screenshots.
          if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Toggle Panel Visibility');
          await screenshotThemes(s, 'e-overview');
          await frame.locator('#verl-settings').evaluate((section) => section.scrollIntoView({ block: 'start' }));
          await screenshotThemes(s, 'e-overview-settings');
          // Clicking the finding selects its value in the editor: `-1.0` on line 5.
          await goTo(page, 1, 1);
          await frame.locator(penalty).click();
          await waitFor('the editor cursor on the negative penalty (line 5)', async () => {
            const at = await cursorPosition(page);
            return at?.line === 5 ? done(at) : pending(`cursor: ${at === undefined ? '(none)' : `Ln ${at.line}, Col ${at.column}`}`);
          });
          // The fix button applies the light bulb's edit: the penalty becomes 1 and the finding goes.
          await frame.locator(fixButton).click();
          await waitForEditorText(page, 'the overview’s fix to set `failure_penalty: 1` in the editor', (t) => /^ {2}failure_penalty: 1(\.0)?\s*$/m.test(t));
          await waitFor(
            'the negative-penalty finding and its fix to leave the overview',
            async () => {
              const left = await frame.locator(penalty).count();
              return left === 0 ? done(left) : pending(`findings: ${await textOf('ul.findings')}`);
            },
            diagnosticsTimeout,
          );
          assert.match(await textOf('ul.findings'), /max_step/, 'the other findings stay');
          await screenshot(page, 'e-overview-fixed');
        } finally {
          await runCommand(page, 'File: Revert File');
        }
      });
    },
  );
});
