/**
 * What a person does in the workbench, as functions: open a file through Quick Open, run a
 * command from the palette, move the cursor, read the Problems panel, the suggest widget, the
 * quick-fix menu and the editor's text. Selectors are VS Code 1.100's DOM (code-server 4.100.3);
 * every wait polls for something visible and fails with what it saw.
 */
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { artifactsDir } from './harness.js';
import { done, pending, waitFor, type WaitOptions } from './wait.js';

const quickInput = '.quick-input-widget';
const quickInputRows = `${quickInput} .quick-input-list .monaco-list-row`;
const editorPart = '.part.editor';
const problemsPanel = '.markers-panel';
const suggestWidget = '.part.editor .editor-widget.suggest-widget.visible';
const actionWidget = '.action-widget';

/**
 * The few DOM shapes the functions that run in the page use. The project's tsconfig has no DOM
 * library (it is Node code), so page functions cast their arguments to these.
 */
interface DomElement {
  readonly tagName: string;
  readonly className: string;
  readonly textContent: string | null;
  readonly style: { readonly top: string };
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

export type Severity = 'error' | 'warning' | 'info';

/** One row of the Problems panel below its file's row. */
export interface Problem {
  /** File name as the panel shows it, e.g. `broken.yaml`. */
  readonly file: string;
  readonly severity: Severity;
  readonly message: string;
  readonly source: string;
  readonly code: string;
  /** 1-based, as the panel shows it in `[Ln 4, Col 3]`. */
  readonly line: number;
  readonly column: number;
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.column} ${p.severity} ${p.source}(${p.code}) ${p.message}`;
}

export function formatProblems(problems: readonly Problem[]): string {
  return problems.length === 0 ? '(no problems)' : problems.map(formatProblem).join('\n');
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * Presses `key` (Ctrl+P, Ctrl+Shift+P, Ctrl+G) until the quick input shows. A key pressed while
 * the workbench is still moving focus (a closing widget, a panel taking focus) can be swallowed,
 * and a person would simply press it again.
 */
async function openQuickInput(page: Page, key: string): Promise<void> {
  const widget = page.locator(quickInput);
  let lastPress = 0;
  await waitFor(
    `the quick input to open after ${key}`,
    async () => {
      if (await widget.isVisible()) return done(true);
      if (Date.now() - lastPress > 2_000) {
        lastPress = Date.now();
        await page.keyboard.press(key);
      }
      return pending(`no visible quick input; focused element: ${await describeFocus(page)}`);
    },
    { timeoutMs: 15_000 },
  );
}

async function describeFocus(page: Page): Promise<string> {
  return page.evaluate(() => {
    const e = (globalThis as unknown as { document: { activeElement: DomElement | null } }).document.activeElement;
    return e === null ? '(none)' : `<${e.tagName.toLowerCase()} class="${e.className}" aria-label="${e.getAttribute('aria-label') ?? ''}">`;
  });
}

/** Texts of the Quick Open / command palette rows that are rendered now. */
async function quickInputItems(page: Page): Promise<string[]> {
  return page.locator(quickInputRows).evaluateAll((rows) => (rows as unknown as DomElement[]).map((r) => r.getAttribute('aria-label') ?? r.textContent ?? ''));
}

/**
 * Types `text` into the open quick input, waits until its first row satisfies `accept`, and
 * picks it with Enter (what a person does once the right entry is on top).
 */
/**
 * Types into the open quick input once its input has the keyboard. The widget can show before it
 * does, and keys typed then go to whatever had it: a focused webview reads letters as its
 * shortcuts ('e', 'r', 'k' move the trajectory viewer's step), which once moved the code-graph
 * scenario's viewer, and the 'k' of a theme's name the trajectory viewer's, off the step checked.
 */
export async function typeIntoQuickInput(page: Page, text: string): Promise<void> {
  const input = page.locator(`${quickInput} .quick-input-box input`);
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.focus({ timeout: 10_000 });
  await page.keyboard.type(text);
}

async function pickFirstQuickInputRow(page: Page, key: string, text: string, what: string, accept: (row: string) => boolean): Promise<void> {
  await openQuickInput(page, key);
  await typeIntoQuickInput(page, text);
  const picked = await waitFor(what, async () => {
    const items = await quickInputItems(page);
    const first = items[0];
    return first !== undefined && accept(first) ? done(first) : pending(`quick input rows:\n${items.join('\n') || '(none)'}`);
  });
  await page.keyboard.press('Enter');
  // The pick is done when the quick input closes, or when it lists other rows than the one picked:
  // a command that opens its own picker (Start Training) reuses the same widget at once, so it may
  // never be seen closed. Closing can wait on the extension host, which a busy machine slows well
  // past the usual fraction of a second.
  await waitFor(
    `the quick input to close after picking "${picked}"`,
    async () => {
      if (!(await page.locator(quickInput).isVisible())) return done(true);
      const rows = await quickInputItems(page);
      return rows.length > 0 && !rows.includes(picked) ? done(true) : pending(`it still lists: ${rows.slice(0, 3).join(' | ') || '(nothing)'}`);
    },
    { timeoutMs: 30_000 },
  );
}

/** Opens a workspace file with Quick Open (Ctrl+P) and waits until its editor tab is active. */
export async function openFile(page: Page, relativePath: string): Promise<void> {
  const name = basename(relativePath);
  await pickFirstQuickInputRow(page, 'Control+P', relativePath, `Quick Open to offer ${relativePath}`, (row) => row.includes(name));
  await waitFor(`an active editor tab for ${name}`, async () => {
    const active = await page.locator(`${editorPart} .tab.active`).allTextContents();
    return active.some((t) => t.includes(name)) ? done(true) : pending(`active tabs: ${active.join(', ') || '(none)'}`);
  });
  await page.locator(`${editorPart} .monaco-editor .view-lines`).first().waitFor({ state: 'visible' });
}

/** Runs a command by its palette label, e.g. `File: Revert File`. */
export async function runCommand(page: Page, label: string): Promise<void> {
  await pickFirstQuickInputRow(page, 'Control+Shift+P', label, `the command palette to offer "${label}"`, (row) =>
    row.toLowerCase().startsWith(label.toLowerCase()),
  );
}

/** Shows and focuses the Problems panel (whether or not it was open). */
export async function focusProblems(page: Page): Promise<void> {
  await runCommand(page, 'Problems: Focus on Problems View');
  await page.locator(problemsPanel).waitFor({ state: 'visible', timeout: 10_000 });
}

/** Gives the keyboard back to the active editor, e.g. after focusing a panel. */
export async function focusEditor(page: Page): Promise<void> {
  await runCommand(page, 'View: Focus Active Editor Group');
}

/**
 * Every problem row the panel renders, in order. The panel is a tree: a file row (aria-label
 * `3 problems in file broken.yaml of folder …`) followed by its marker rows.
 */
export async function readProblems(page: Page): Promise<Problem[]> {
  const rows = await page.locator(`${problemsPanel} .monaco-list-row`).evaluateAll((elements) =>
    // No named helper functions in here: tsx wraps them in a `__name` call that the page lacks.
    (elements as unknown as DomElement[]).map((row) => ({
      aria: row.getAttribute('aria-label') ?? '',
      icon: row.querySelector('.marker-icon')?.className ?? '',
      message: Array.from(row.querySelectorAll('.marker-message'))
        .map((m) => m.textContent ?? '')
        .join('\n'),
      source: row.querySelector('.marker-source')?.textContent?.trim() ?? '',
      code: row.querySelector('.marker-code')?.textContent?.trim() ?? '',
      position: row.querySelector('.marker-line')?.textContent?.trim() ?? '',
    })),
  );
  const problems: Problem[] = [];
  let file = '';
  for (const row of rows) {
    const fileRow = /problems? in file (.+?) of folder/i.exec(row.aria) ?? /problems? in file (.+)$/i.exec(row.aria);
    if (row.icon === '' && fileRow?.[1] !== undefined) {
      file = fileRow[1];
      continue;
    }
    const position = /Ln (\d+), Col (\d+)/.exec(row.position);
    if (position === null) continue;
    problems.push({
      file,
      severity: row.icon.includes('error') ? 'error' : row.icon.includes('warning') ? 'warning' : 'info',
      message: row.message,
      source: row.source,
      code: row.code,
      line: Number(position[1]),
      column: Number(position[2]),
    });
  }
  return problems;
}

/** Polls the Problems panel until `accept` holds, and returns the rows it accepted. */
export async function waitForProblems(page: Page, what: string, accept: (problems: readonly Problem[]) => boolean, options?: WaitOptions): Promise<Problem[]> {
  return waitFor(
    what,
    async () => {
      const problems = await readProblems(page);
      return accept(problems) ? done(problems) : pending(`Problems panel:\n${formatProblems(problems)}`);
    },
    options,
  );
}

/** The cursor position the status bar shows (`Ln 5, Col 3`), or undefined when none is shown. */
export async function cursorPosition(page: Page): Promise<{ line: number; column: number } | undefined> {
  const texts = await page.locator('.part.statusbar .statusbar-item').allTextContents();
  for (const t of texts) {
    const m = /Ln (\d+), Col (\d+)/.exec(t);
    if (m !== null) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return undefined;
}

export async function waitForCursor(page: Page, line: number, column: number): Promise<void> {
  await waitFor(`the cursor at Ln ${line}, Col ${column}`, async () => {
    const at = await cursorPosition(page);
    return at?.line === line && at.column === column
      ? done(true)
      : pending(`status bar cursor: ${at === undefined ? '(none)' : `Ln ${at.line}, Col ${at.column}`}`);
  });
}

/** Moves the cursor with Go to Line (Ctrl+G, `line:column`) in the active editor. */
export async function goTo(page: Page, line: number, column: number): Promise<void> {
  await openQuickInput(page, 'Control+G');
  await page.keyboard.type(`${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.locator(quickInput).waitFor({ state: 'hidden', timeout: 10_000 });
  await waitForCursor(page, line, column);
}

/**
 * The active editor's text as rendered, line by line. Monaco renders only what is on screen, which
 * is the whole file for the small fixtures here; spaces come back as non-breaking spaces.
 */
export async function editorText(page: Page): Promise<string> {
  const lines = await page
    .locator(`${editorPart} .monaco-editor .view-lines`)
    .first()
    .evaluate((viewLines) =>
      Array.from((viewLines as unknown as DomElement).querySelectorAll('.view-line'))
        .map((l) => ({ top: parseFloat(l.style.top || '0'), text: l.textContent ?? '' }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text),
    );
  return lines.map((l) => l.replace(/\u00a0/g, ' ')).join('\n');
}

export async function waitForEditorText(page: Page, what: string, accept: (text: string) => boolean): Promise<string> {
  return waitFor(what, async () => {
    const text = await editorText(page);
    return accept(text) ? done(text) : pending(`editor text:\n${text}`);
  });
}

/** Labels of the suggest widget's rendered rows (empty when it is closed). */
export async function suggestions(page: Page): Promise<string[]> {
  return rowLabels(page.locator(`${suggestWidget} .monaco-list-row`), '.label-name');
}

/**
 * Opens the suggest widget at the cursor (Ctrl+Space) until it offers `label`, and returns the
 * labels it showed. The widget does not ask again while it stays open, so each attempt closes and
 * reopens it; the failure lists what every attempt offered.
 */
export async function triggerSuggest(page: Page, label: string, options: WaitOptions = { timeoutMs: 20_000 }): Promise<string[]> {
  let lastPress = 0;
  const answers: string[] = [];
  return waitFor(
    `the suggest widget to offer ${label}`,
    async () => {
      const labels = await suggestions(page);
      if (labels.includes(label)) return done(labels);
      if (Date.now() - lastPress > 3_000) {
        if (lastPress > 0) {
          answers.push(labels.length === 0 ? '(closed or empty)' : labels.join(', '));
          await page.keyboard.press('Escape');
        }
        lastPress = Date.now();
        await page.keyboard.press('Control+Space');
      }
      return pending(`suggest widget after each Ctrl+Space:\n${answers.join('\n') || '(nothing yet)'}`);
    },
    options,
  );
}

/**
 * Narrows the Problems panel to one file with a glob in its filter box, so that the rows a test
 * reads are on screen (the panel renders only the rows in view). An empty pattern clears it.
 */
export async function filterProblems(page: Page, pattern: string): Promise<void> {
  const input = page.locator(`.part.panel input[placeholder^="Filter"]`).first();
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(pattern);
}

/** Titles of the quick-fix menu's rendered actions (empty when it is closed). */
export async function codeActions(page: Page): Promise<string[]> {
  return rowLabels(page.locator(`${actionWidget} .monaco-list-row.action`), '.title');
}

async function rowLabels(rows: Locator, labelSelector: string): Promise<string[]> {
  return rows.evaluateAll(
    (elements, selector) =>
      (elements as unknown as DomElement[]).map((e) => (e.querySelector(selector)?.textContent ?? e.getAttribute('aria-label') ?? e.textContent ?? '').trim()),
    labelSelector,
  );
}

/**
 * Opens the quick-fix menu at the cursor (Ctrl+.) and clicks the entry titled `title`. When the
 * editor answers "No code actions available" (the diagnostics were being republished when it
 * asked), it asks again, as a person would.
 */
export async function chooseCodeAction(page: Page, title: string, options: WaitOptions = { timeoutMs: 30_000 }): Promise<void> {
  let lastPress = 0;
  const answers: string[] = [];
  await waitFor(
    `the quick-fix menu to offer "${title}"`,
    async () => {
      const titles = await codeActions(page);
      if (titles.includes(title)) return done(true);
      if (Date.now() - lastPress > 3_000) {
        if (lastPress > 0) {
          answers.push(titles.length === 0 ? await editorMessage(page) : titles.join(' | '));
          await page.keyboard.press('Escape');
        }
        lastPress = Date.now();
        await page.keyboard.press('Control+Period');
      }
      return pending(`quick-fix menu after each Ctrl+.: ${answers.join('; ') || '(nothing yet)'}`);
    },
    options,
  );
  // The menu lays a pointer block over the page while it opens, so it is driven with the keyboard:
  // move the focus down to the entry, then Enter.
  await waitFor(
    `"${title}" to be focused in the quick-fix menu`,
    async () => {
      const focused = (await page.locator(`${actionWidget} .monaco-list-row.action.focused`).getAttribute('aria-label', { timeout: 2_000 })) ?? '';
      if (focused === title) return done(true);
      await page.keyboard.press('ArrowDown');
      return pending(`focused entry: ${focused || '(none)'}`);
    },
    { timeoutMs: 10_000 },
  );
  await page.keyboard.press('Enter');
  await page.locator(actionWidget).waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The editor's inline message (e.g. "No code actions available"), or a note that none shows. */
async function editorMessage(page: Page): Promise<string> {
  const texts = await page.locator(`${editorPart} .monaco-editor-overlaymessage`).allTextContents();
  return (
    texts
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .join(' ') || '(menu closed, no message)'
  );
}

const runningExtensionsEditor = '.runtime-extensions-editor';

/** One row of the Running Extensions editor (command "Developer: Show Running Extensions"). */
export interface RunningExtension {
  /** The `name` of the extension's manifest, which the row carries as its aria-label: `json-language-features`. */
  readonly name: string;
  /** The name the row shows: `JSON Language Features`. */
  readonly displayName: string;
  /** The row's timing as shown: `Startup Activation: 108ms`, `Activation: 255ms` or `Activating...`. */
  readonly activationText: string;
  /**
   * The activation time VS Code reports (code loading plus the synchronous `activate` call), or
   * undefined while the extension is still activating.
   */
  readonly activationMs: number | undefined;
  /** Whether VS Code counts it as a start-up activation (`Startup Activation: …`). */
  readonly startup: boolean;
}

export function formatRunningExtension(e: RunningExtension): string {
  return `${e.name} (${e.displayName}): ${e.activationText}`;
}

/** The Running Extensions rows rendered now (the list renders only the rows in view). */
export async function readRunningExtensions(page: Page): Promise<RunningExtension[]> {
  const rows = await page.locator(`${runningExtensionsEditor} .monaco-list-row`).evaluateAll((elements) =>
    (elements as unknown as DomElement[]).map((row) => ({
      name: row.getAttribute('aria-label') ?? '',
      displayName: row.querySelector('.name')?.textContent?.trim() ?? '',
      activationText: row.querySelector('.activation-time')?.textContent?.trim() ?? '',
    })),
  );
  return rows.map((row) => {
    const ms = /(\d+(?:\.\d+)?)\s*ms\b/.exec(row.activationText);
    return { ...row, activationMs: ms?.[1] === undefined ? undefined : Number(ms[1]), startup: /^Startup Activation/i.test(row.activationText) };
  });
}

/**
 * Waits until the open Running Extensions editor shows an activation time for every extension in
 * `names` (manifest names, as in `RunningExtension.name`) and returns their rows by name. The
 * editor updates as extensions finish activating; when a row is out of view the list is scrolled
 * with the mouse wheel, back to the top once it stops moving.
 */
export async function waitForRunningExtensions(
  page: Page,
  names: readonly string[],
  options: WaitOptions = { timeoutMs: 60_000 },
): Promise<Map<string, RunningExtension>> {
  await page.locator(runningExtensionsEditor).first().waitFor({ state: 'visible', timeout: 15_000 });
  const found = new Map<string, RunningExtension>();
  let previousView = '';
  return waitFor(
    `the Running Extensions editor to show activation times for ${names.join(', ')}`,
    async () => {
      const rows = await readRunningExtensions(page);
      for (const row of rows) if (names.includes(row.name) && row.activationMs !== undefined) found.set(row.name, row);
      const missing = names.filter((n) => !found.has(n));
      if (missing.length === 0) return done(found);
      const view = rows.map((r) => r.name).join(',');
      await page
        .locator(`${runningExtensionsEditor} .monaco-list`)
        .first()
        .hover({ position: { x: 10, y: 10 } });
      await page.mouse.wheel(0, view === previousView ? -100_000 : 350);
      previousView = view;
      return pending(`no activation time yet for ${missing.join(', ')}; rows in view:\n${rows.map(formatRunningExtension).join('\n') || '(none)'}`);
    },
    options,
  );
}

/**
 * Hovers the activation time of the Running Extensions row `name` (which must be in view) and
 * returns the hover's text, which says what activated it: `Activated by vscode.json-language-features
 * because you opened a json file`.
 */
export async function runningExtensionActivationHover(page: Page, name: string): Promise<string> {
  // A hover still open over another row would be read as this one's.
  await page.mouse.move(0, 0);
  await page.locator('.workbench-hover').first().waitFor({ state: 'hidden', timeout: 5_000 });
  await page.locator(`${runningExtensionsEditor} .monaco-list-row[aria-label="${name}"] .activation-time`).hover({ timeout: 5_000 });
  try {
    return await waitFor(
      `the hover over ${name}'s activation time`,
      async () => {
        const text = (await page.locator('.workbench-hover').allTextContents()).join(' ').trim();
        return text !== '' ? done(text) : pending('(no hover shown)');
      },
      { timeoutMs: 5_000 },
    );
  } finally {
    // Move away so that the hover closes and does not cover the next row read.
    await page.mouse.move(0, 0);
  }
}
