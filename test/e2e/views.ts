/**
 * What a person does with the Graph Planner views in the workbench: show a view, read its rows
 * (label and description), expand a row, click an inline action, choose from a row's context menu,
 * read notifications. Selectors are VS Code 1.100's DOM (code-server 4.100.3); every wait polls for
 * something visible and fails with what it saw.
 */
import type { Locator, Page } from 'playwright-core';
import { runLabel } from '../../extension/src/views/runsText.js';
import { fileLabel } from '../../extension/src/views/taskItems.js';
import { runCommand } from './workbench.js';
import { done, pending, waitFor, type WaitOptions } from './wait.js';

export type ViewName = 'Tasks' | 'Containers' | 'Runs';

/** The view's pane in the side bar, found by its header title. */
export function viewPane(page: Page, view: ViewName): Locator {
  return page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: new RegExp(`^${view}$`, 'i') }) });
}

/** Shows and focuses a view with the command VS Code contributes for every view. */
export async function showView(page: Page, view: ViewName): Promise<void> {
  // VS Code names the command after the view's container: `Graph Planner: Focus on Runs View`.
  await runCommand(page, `Graph Planner: Focus on ${view} View`);
  await viewPane(page, view).locator('.pane-body').waitFor({ state: 'visible', timeout: 15_000 });
}

export interface Row {
  readonly label: string;
  readonly description: string;
  /** The nesting level (1 for top-level rows). */
  readonly level: number;
  readonly expanded: boolean | undefined;
}

interface RowElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): { textContent: string | null } | null;
}

/** The rows the view renders now, top to bottom. */
export async function viewRows(page: Page, view: ViewName): Promise<Row[]> {
  return viewPane(page, view)
    .locator('.monaco-list-row')
    .evaluateAll((rows) =>
      (rows as unknown as RowElement[]).map((r) => ({
        label: r.querySelector('.label-name')?.textContent ?? '',
        description: r.querySelector('.label-description')?.textContent ?? '',
        level: Number(r.getAttribute('aria-level') ?? '1'),
        expanded: r.getAttribute('aria-expanded') === null ? undefined : r.getAttribute('aria-expanded') === 'true',
      })),
    );
}

/** The label the Runs view gives a run folder (`attempts-rollout 11:23` for `attempts-rollout-20261126-112343`). */
export function runRowLabel(run: string): string {
  return runLabel(run, Date.now());
}

export function formatRows(rows: readonly Row[]): string {
  return rows.map((r) => `${'  '.repeat(r.level - 1)}${r.label} — ${r.description}`).join('\n') || '(no rows)';
}

/** Waits until a row passes `accept`; returns it. */
export async function waitForRow(
  page: Page,
  view: ViewName,
  what: string,
  accept: (row: Row) => boolean,
  options: WaitOptions = { timeoutMs: 60_000 },
): Promise<Row> {
  return waitFor(
    what,
    async () => {
      const rows = await viewRows(page, view);
      const row = rows.find(accept);
      return row !== undefined ? done(row) : pending(`${view} view rows:\n${formatRows(rows)}`);
    },
    options,
  );
}

/**
 * A row as a person tells it from the others: its label, or its label and a text its description
 * holds (two dataset files named `tasks.jsonl` differ only by the folder in their descriptions).
 */
export type RowName = string | { readonly label: string; readonly within: string };

/** The Tasks view's row of a dataset file, by its workspace-relative path: its name, its folder in the description. */
export function taskFileRow(path: string): RowName {
  const { label, folder } = fileLabel(path);
  return folder === null ? label : { label, within: folder };
}

/** Whether a row read with `viewRows` is the dataset file at `path`. */
export function isTaskFileRow(row: Row, path: string): boolean {
  const name = taskFileRow(path);
  return typeof name === 'string' ? row.label === name : row.label === name.label && row.description.split(' · ').includes(name.within);
}

/**
 * The row element whose label is exactly `label`: a substring match would take
 * `sample-calc-add-unittest` for `sample-calc-add` whenever it is listed first.
 */
export function rowLocator(page: Page, view: ViewName, name: RowName): Locator {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const label = typeof name === 'string' ? name : name.label;
  let rows = viewPane(page, view)
    .locator('.monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escape(label)}\\s*$`) }) });
  // The folder is the description's last part: `datasets/sample` is not `datasets/samples`.
  if (typeof name !== 'string') rows = rows.filter({ has: page.locator('.label-description', { hasText: new RegExp(`(^| · )${escape(name.within)}\\s*$`) }) });
  return rows.first();
}

/** Selects the row and expands it (the Right arrow, as a person using the keyboard does). */
export async function expandRow(page: Page, view: ViewName, name: RowName): Promise<void> {
  const row = rowLocator(page, view, name);
  await row.click();
  if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
}

/**
 * Clicks the view's title action with this label, then moves the pointer off the title bar: the
 * action's tooltip (or the tooltip of the action that takes its place, as a toggle does) would
 * otherwise stay over the first rows and take the next click meant for one of them.
 */
export async function clickTitleAction(page: Page, view: ViewName, action: string): Promise<void> {
  const pane = viewPane(page, view);
  await pane.hover();
  await pane.locator(`.pane-header .action-label[aria-label="${action}"]`).click({ timeout: 10_000 });
  await page.mouse.move(0, 0);
  await page.locator('.context-view .hover-contents').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** Hovers the row and clicks its inline action with this title. */
export async function clickInlineAction(page: Page, view: ViewName, label: RowName, action: string): Promise<void> {
  const row = rowLocator(page, view, label);
  await row.hover();
  await row.locator(`.actions .action-label[aria-label="${action}"]`).click({ timeout: 10_000 });
}

/** Right-clicks the row and chooses `item` from its context menu. */
export async function chooseFromContextMenu(page: Page, view: ViewName, label: RowName, item: string): Promise<void> {
  await rowLocator(page, view, label).click({ button: 'right' });
  const entry = page.locator('.context-view .monaco-menu .action-item .action-label', { hasText: item }).first();
  await entry.waitFor({ state: 'visible', timeout: 10_000 });
  // The menu acts on the highlighted entry; a synthetic click on the label does not always reach it.
  await entry.hover();
  await page.keyboard.press('Enter');
  await entry.waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The texts of the notifications on screen (toasts). */
export async function notifications(page: Page): Promise<string[]> {
  return page.locator('.notifications-toasts .notification-toast .notification-list-item-message').allTextContents();
}

export async function waitForNotification(page: Page, what: string, pattern: RegExp, options: WaitOptions = { timeoutMs: 30_000 }): Promise<string> {
  return waitFor(
    what,
    async () => {
      const texts = await notifications(page);
      const hit = texts.find((t) => pattern.test(t));
      return hit !== undefined ? done(hit) : pending(`notifications:\n${texts.join('\n') || '(none)'}`);
    },
    options,
  );
}

/**
 * The text of the visible terminal, one line per row, trailing blank rows dropped. It needs the
 * DOM renderer (`terminal.integrated.gpuAcceleration: off`, which the harness sets).
 */
export async function terminalText(page: Page): Promise<string> {
  const rows = await page.locator('.part.panel .terminal-wrapper.active .xterm-rows > div').allTextContents();
  const lines = rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}

/** The first rows of the open quick input (a quick pick), as their labels. */
export async function quickPickRows(page: Page): Promise<string[]> {
  return page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row')
    .evaluateAll((rows) => (rows as unknown as RowElement[]).map((r) => r.getAttribute('aria-label') ?? ''));
}

/** Waits for a quick pick whose first row passes `accept`, then presses Enter on it. */
export async function acceptQuickPick(page: Page, what: string, accept: (first: string) => boolean): Promise<void> {
  await waitFor(what, async () => {
    const rows = await quickPickRows(page);
    const first = rows[0];
    return first !== undefined && accept(first) ? done(first) : pending(`quick pick rows:\n${rows.join('\n') || '(none)'}`);
  });
  await page.keyboard.press('Enter');
}

/** How much of a row shows: whether its label is cut, and how many characters of its description show whole. */
export interface RowFit {
  readonly label: string;
  readonly description: string;
  readonly level: number;
  readonly labelCut: boolean;
  readonly descriptionShown: number;
}

interface Box {
  readonly right: number;
}
interface TextNode {
  readonly length: number;
}
interface FitElement {
  getAttribute(name: string): string | null;
  querySelector(
    selector: string,
  ): (FitElement & { readonly textContent: string | null; readonly firstChild: TextNode | null; getBoundingClientRect(): Box }) | null;
  readonly ownerDocument: {
    createRange(): { setStart(node: TextNode, offset: number): void; setEnd(node: TextNode, offset: number): void; getBoundingClientRect(): Box };
  };
}

/**
 * Measures each row of the view as drawn: a label is cut when its text runs past the right edge of
 * the row's label box (VS Code clips there and draws an ellipsis), and the description shows the
 * characters that end before that edge. Text lengths say nothing of this; the drawn boxes do.
 */
export async function rowFits(page: Page, view: ViewName): Promise<RowFit[]> {
  return viewPane(page, view)
    .locator('.monaco-list-row')
    .evaluateAll((rows) =>
      (rows as unknown as FitElement[]).map((r) => {
        const box = r.querySelector('.monaco-icon-label-container')?.getBoundingClientRect().right ?? 0;
        const name = r.querySelector('.label-name');
        const description = r.querySelector('.label-description');
        const text = description?.firstChild ?? null;
        let shown = 0;
        if (text !== null && description !== null) {
          const range = description.ownerDocument.createRange();
          range.setStart(text, 0);
          // The longest prefix whose drawn box ends inside the label box.
          while (shown < text.length) {
            range.setEnd(text, shown + 1);
            if (range.getBoundingClientRect().right > box + 0.5) break;
            shown++;
          }
        }
        return {
          label: name?.textContent ?? '',
          description: description?.textContent ?? '',
          level: Number(r.getAttribute('aria-level') ?? '1'),
          labelCut: (name?.getBoundingClientRect().right ?? 0) > box + 0.5,
          descriptionShown: shown,
        };
      }),
    );
}

/** Drags the side bar's right edge `pixels` to the right, as a person widens it. */
export async function widenSideBar(page: Page, pixels: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (box === null) throw new Error('the side bar is not visible');
  const x = box.x + box.width - 1;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + pixels / 2, y, { steps: 5 });
  await page.mouse.move(x + pixels, y, { steps: 5 });
  await page.mouse.up();
  await waitFor(
    'the side bar to be wider',
    async () => {
      const now = await page.locator('.part.sidebar').boundingBox();
      return now !== null && now.width > box.width + pixels / 2 ? done(now.width) : pending(`width ${now?.width ?? 0}, was ${box.width}`);
    },
    { timeoutMs: 5_000 },
  );
}

/**
 * Clicks a row that opens something (an episode's trajectory), and clicks it again while nothing
 * opened: a row clicked while its view redraws it names a command the view no longer knows
 * ("Actual command not found" in the extension host's log), so that click opens nothing.
 */
export async function openFromRow(page: Page, view: ViewName, name: RowName, what: string, opened: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    what,
    async () => {
      await rowLocator(page, view, name).click();
      for (const deadline = Date.now() + 5_000; Date.now() < deadline; await page.waitForTimeout(250)) if (await opened()) return done(true);
      return pending(`clicked the row ${typeof name === 'string' ? name : name.label}; nothing opened in 5 s`);
    },
    { timeoutMs },
  );
}
