/**
 * Diagnostics that scale and paths, in real VS Code (code-server 4.100.3 with
 * `dist/graph-planner.vsix`, driven in Debian's Chromium): the 499 SWE-bench Verified tasks show
 * one summary per cause in the Problems panel, with its count, and "Fix All" changes every row so
 * the summaries go; a dataset path is completed from the workspace; a misspelt one offers "Did you
 * mean" and applying it clears the warning; a rule-agent config on the local backend gets no GPU
 * or model notes, where a model-agent config gets them. The workspace is `fixtures/scale/` (the
 * configs) with the repository's `datasets/sample/tasks.jsonl` and the Verified tasks
 * (`test/fixtures/swebench/`) copied in as `datasets/verified.jsonl`. Every moment a person looks
 * at is saved in the light, dark and high-contrast themes.
 *
 * Run: `bash test/e2e/setup.sh && npm run -s build && npm run -s package && node --import tsx --test test/e2e/diagnosticsAtScale.test.ts`.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot, startSession, stopSession, type Session } from './harness.js';
import { extensionLog, loggedMs, Scenarios } from './scenarios.js';
import { screenshotThemes, setTheme, type ThemeKind } from './themes.js';
import { done, pending, waitFor } from './wait.js';
import {
  chooseCodeAction,
  codeActions,
  filterProblems,
  focusEditor,
  focusProblems,
  formatProblems,
  goTo,
  openFile,
  runCommand,
  screenshot,
  suggestions,
  triggerSuggest,
  waitForEditorText,
  waitForProblems,
  type Problem,
} from './workbench.js';
import { fixturePath, swebenchVerifiedFixture } from '../support/fixtures.js';

const verifiedJsonl = 'datasets/verified.jsonl';
const misspeltYaml = 'configs/experiments/misspelt.yaml';
const didYouMean = 'Did you mean `datasets/sample/tasks.jsonl`?';
/** The language server starts with the extension and reads a 4 MB dataset; give it room on a busy machine. */
const diagnosticsTimeout = { timeoutMs: 90_000 };
const scenarioTimeout = { timeout: 300_000 };
const allThemes: readonly ThemeKind[] = ['light', 'dark', 'high-contrast'];

const ours = (p: Problem): boolean => p.source === 'graph-planner';
const inFile =
  (name: string) =>
  (p: Problem): boolean =>
    p.file === name && ours(p);

const scenarios = new Scenarios();
const scenario = (name: string, body: (s: Session) => Promise<void>): Promise<void> => scenarios.run(name, body);

/**
 * Screenshots of a widget that closes when the focus moves (the suggest list, the quick-fix menu, a
 * hover) in each theme: the theme picker takes the focus, so the widget is opened again, by
 * `open`, after each switch, and closed with Escape after its picture; the next switch waits until
 * `widget` (its selector) is hidden, so no key meant for the picker reaches it.
 */
async function widgetInThemes(s: Session, name: string, widget: string, open: () => Promise<void>): Promise<void> {
  for (const kind of allThemes) {
    await setTheme(s, kind);
    await open();
    await screenshot(s.page, `${name}-${kind}`);
    await waitFor(
      `${widget} to close after Escape`,
      async () => {
        if ((await s.page.locator(widget).count()) === 0 || !(await s.page.locator(widget).first().isVisible())) return done(true);
        await s.page.keyboard.press('Escape');
        return pending('still open');
      },
      { timeoutMs: 10_000 },
    );
  }
  await setTheme(s, 'dark');
}

/** The count the Problems panel's row for `file` gives ("1 problem in file verified.jsonl of folder datasets"). */
async function problemCount(s: Session, file: string): Promise<number> {
  const labels = await s.page.locator('.markers-panel .monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
  const match = labels.map((l) => new RegExp(`^(\\d+) problems? in file ${file.replace('.', '\\.')}\\b`, 'i').exec(l)).find((m) => m !== null);
  assert.ok(match?.[1] !== undefined, `no row for ${file} among: ${labels.slice(0, 5).join(' | ')}`);
  return Number(match[1]);
}

/** Runs "Graph Planner: Check Config" on the active file and returns the summary it logs. */
async function checkConfig(s: Session, file: string): Promise<string> {
  const before = (await extensionLog(s)).split('\n').length;
  await runCommand(s.page, 'Graph Planner: Check Config');
  return waitFor(
    `"Check Config: ${file}: …" in the Graph Planner output channel`,
    async () => {
      const lines = (await extensionLog(s)).split('\n').slice(before - 1);
      const line = lines.find((l) => l.includes(`Check Config: ${file}:`));
      return line === undefined ? pending(lines.slice(-5).join('\n') || '(nothing new)') : done(line.slice(line.indexOf('Check Config: ')));
    },
    diagnosticsTimeout,
  );
}

void describe('diagnostics that scale and paths (code-server + Chromium)', () => {
  before(
    async () => {
      scenarios.session = await startSession({
        fixture: 'scale',
        extraFiles: {
          'datasets/sample/tasks.jsonl': 'datasets/sample/tasks.jsonl',
          [relative(repoRoot, fixturePath(swebenchVerifiedFixture))]: verifiedJsonl,
        },
      });
    },
    { timeout: 240_000 },
  );

  after(() => stopSession(scenarios.session), { timeout: 60_000 });

  void it('activates and starts its language server', scenarioTimeout, async () => {
    await scenario('scale-activation', async (s) => {
      scenarios.activation = 'failed';
      await loggedMs(s, 'Graph Planner server ready', /Graph Planner server ready\D*?(\d+(?:\.\d+)?)\s*ms/);
      scenarios.activation = 'ready';
    });
  });

  void it('shows one summary per cause for the 499 Verified tasks, and Fix All changes every row until none is left', scenarioTimeout, async () => {
    await scenario('scale-summary', async (s) => {
      const { page } = s;
      await openFile(page, verifiedJsonl);
      await focusProblems(page);
      await filterProblems(page, `**/${verifiedJsonl.split('/').pop() ?? ''}`);
      // The rows also carry the legacy `repoenv` backend, a hint, which the Problems panel does not list.
      const problems = await waitForProblems(
        page,
        'the task/workdir-mismatch summary of verified.jsonl',
        (ps) => ps.some((p) => inFile('verified.jsonl')(p) && p.code === 'task/workdir-mismatch'),
        diagnosticsTimeout,
      );
      // The rows under the summary are its related locations (no source), not problems of their own.
      const rows = problems.filter(inFile('verified.jsonl'));
      const seen = formatProblems(rows);
      assert.deepEqual(
        rows.map((p) => p.code),
        ['task/workdir-mismatch'],
        `one row for the cause, not one per task:\n${seen}`,
      );
      assert.equal(await problemCount(s, 'verified.jsonl'), 1, 'the file row counts one problem');
      const workdir = rows[0] as Problem;
      assert.match(workdir.message, /^499 rows \(lines 1–499\): `sandbox\.workdir` is `\/repo`/, seen);
      assert.equal(workdir.line, 1, seen);
      assert.ok(workdir.column > 1, `the summary sits on the first row's "workdir" key, not at column 1:\n${seen}`);
      const related = problems.filter((p) => p.file === 'verified.jsonl' && p.source === '');
      assert.equal(related.length > 0 && related[0]?.line, 1, 'the first rows are listed under the summary, from line 1');
      await screenshotThemes(s, 'scale-summary-problems');

      // The summary's hover, at its place in the editor: the first row's "workdir" key.
      await focusEditor(page);
      // The key sits thousands of columns in, so Go to Line leaves it at the editor's right edge;
      // moving the cursor 40 characters on and back scrolls it clear of the edge, as a person would.
      await goTo(page, workdir.line, workdir.column);
      for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
      for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowLeft');
      await widgetInThemes(s, 'scale-summary-hover', '.monaco-hover:not(.hidden)', async () => {
        await runCommand(page, 'Show or Focus Hover');
        await waitFor('the hover to show the summary', async () => {
          const text = (await page.locator('.monaco-hover:not(.hidden)').allTextContents()).join(' ');
          return /499 rows/.test(text) ? done(text) : pending(text || '(no hover)');
        });
      });

      await focusEditor(page);
      await runCommand(page, 'Fix All');
      await focusProblems(page);
      await waitForProblems(page, 'the summary to go from verified.jsonl', (ps) => !ps.some(inFile('verified.jsonl')), diagnosticsTimeout);
      await screenshot(page, 'scale-summary-fixed');
      // Saved once the edit is in, every row of the file on disk has both fixes.
      await focusEditor(page);
      await page.keyboard.press('Control+S');
      const file = join(s.workspace, verifiedJsonl);
      const saved = await waitFor(
        'verified.jsonl on disk with every row fixed',
        async () => {
          const tasks = (await readFile(file, 'utf8'))
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l) as { sandbox: { workdir: string; backend: string } });
          const unfixed = tasks.filter((t) => t.sandbox.workdir !== '/testbed' || t.sandbox.backend !== 'docker').length;
          return unfixed === 0 ? done(tasks.length) : pending(`${unfixed} of ${tasks.length} rows not fixed yet`);
        },
        diagnosticsTimeout,
      );
      assert.equal(saved, 499);
    });
  });

  void it("completes dataset_train from the workspace's task files", scenarioTimeout, async () => {
    await scenario('scale-path-completion', async (s) => {
      const { page } = s;
      await openFile(page, 'configs/experiments/complete.yaml');
      // The Problems panel shows this file's findings as the value is typed.
      await focusProblems(page);
      await filterProblems(page, '**/complete.yaml');
      await focusEditor(page);
      await goTo(page, 5, 1);
      await page.keyboard.press('End');
      await page.keyboard.type(' datasets/');
      try {
        const offered = await triggerSuggest(page, 'verified.jsonl', diagnosticsTimeout);
        assert.ok(offered.includes('sample/'), `the folder is offered too: ${offered.join(', ')}`);
        assert.ok(!offered.some((l) => l.endsWith('.yaml')), `only folders and task files: ${offered.join(', ')}`);
        await page.keyboard.press('Escape');
        await widgetInThemes(s, 'scale-path-completion', '.suggest-widget.visible', async () => {
          await focusEditor(page);
          await triggerSuggest(page, 'verified.jsonl', diagnosticsTimeout);
        });
        // Choosing the file writes the whole path as the value.
        await focusEditor(page);
        await triggerSuggest(page, 'verified.jsonl', diagnosticsTimeout);
        await waitFor('verified.jsonl to be focused in the suggest list', async () => {
          const focused = (await page.locator('.suggest-widget .monaco-list-row.focused .label-name').allTextContents()).join('');
          if (focused === 'verified.jsonl') return done(true);
          await page.keyboard.press('ArrowDown');
          return pending(`focused: ${focused || '(none)'}; offered: ${(await suggestions(page)).join(', ')}`);
        });
        await page.keyboard.press('Enter');
        await waitForEditorText(page, 'the editor to show `dataset_train: datasets/verified.jsonl`', (t) =>
          /^ {2}dataset_train: datasets\/verified\.jsonl\s*$/m.test(t),
        );
      } finally {
        await page.keyboard.press('Escape');
        await runCommand(page, 'File: Revert File');
      }
    });
  });

  void it('offers "Did you mean" for a misspelt dataset folder, and applying it clears the warning', scenarioTimeout, async () => {
    await scenario('scale-did-you-mean', async (s) => {
      const { page } = s;
      await openFile(page, misspeltYaml);
      await focusProblems(page);
      await filterProblems(page, '**/misspelt.yaml');
      const [missing] = (
        await waitForProblems(
          page,
          'the path-missing warning in misspelt.yaml',
          (ps) => ps.some((p) => inFile('misspelt.yaml')(p) && p.code === 'preflight/path-missing'),
          diagnosticsTimeout,
        )
      ).filter((p) => inFile('misspelt.yaml')(p) && p.code === 'preflight/path-missing');
      assert.ok(missing !== undefined);
      assert.equal(missing.line, 5, 'on the value of dataset_train');
      assert.match(missing.message, /Did you mean `datasets\/sample\/tasks\.jsonl`\?/);
      await focusEditor(page);
      await goTo(page, missing.line, missing.column);
      await widgetInThemes(s, 'scale-did-you-mean', '.action-widget', async () => {
        await focusEditor(page);
        let lastPress = 0;
        await waitFor(`the quick-fix menu to offer "${didYouMean}"`, async () => {
          const titles = await codeActions(page);
          if (titles.includes(didYouMean)) return done(titles);
          // Pressed again only when a press had time to open it, so two presses never race.
          if (Date.now() - lastPress > 3_000) {
            lastPress = Date.now();
            await page.keyboard.press('Control+Period');
          }
          return pending(titles.join(' | ') || '(closed)');
        });
      });
      await focusEditor(page);
      await chooseCodeAction(page, didYouMean);
      await waitForEditorText(page, 'the editor to show the corrected path', (t) => /^ {2}dataset_train: datasets\/sample\/tasks\.jsonl\s*$/m.test(t));
      await page.keyboard.press('Control+S');
      await focusProblems(page);
      await waitForProblems(page, 'the path-missing warning to go', (ps) => !ps.some(inFile('misspelt.yaml')), diagnosticsTimeout);
      await screenshot(page, 'scale-did-you-mean-fixed');
    });
  });

  void it('gives a rule-agent config on the local backend no GPU or model notes, where a model-agent config gets them', scenarioTimeout, async () => {
    await scenario('scale-rule-agent', async (s) => {
      const { page } = s;
      await openFile(page, 'configs/experiments/model_agent.yaml');
      const model = await checkConfig(s, 'configs/experiments/model_agent.yaml');
      assert.match(model, /No problems found \(\d+ notes?\)\./, `the model agent gets its GPU and model notes: ${model}`);
      await focusProblems(page);
      await filterProblems(page, '**/model_agent.yaml');
      const notes = await waitForProblems(
        page,
        "the model agent's notes",
        (ps) => ps.some((p) => inFile('model_agent.yaml')(p) && p.code === 'preflight/shared-devices'),
        diagnosticsTimeout,
      );
      const codes = notes.filter(inFile('model_agent.yaml')).map((p) => p.code);
      assert.ok(codes.includes('preflight/model-not-local'), codes.join(', '));
      // None sits on the comment on line 1: each is on a key of the file.
      assert.ok(
        notes.filter(inFile('model_agent.yaml')).every((p) => p.line > 1),
        formatProblems(notes),
      );
      await screenshot(page, 'scale-model-notes');

      await openFile(page, 'configs/experiments/rule_local.yaml');
      const rule = await checkConfig(s, 'configs/experiments/rule_local.yaml');
      assert.match(rule, /: No problems found\.$/, `no notes at all for the rule agent on the local backend: ${rule}`);
      await focusProblems(page);
      await filterProblems(page, '**/rule_local.yaml');
      await waitForProblems(page, 'no rows for rule_local.yaml', (ps) => !ps.some(inFile('rule_local.yaml')), diagnosticsTimeout);
      await screenshotThemes(s, 'scale-rule-agent');
    });
  });
});
