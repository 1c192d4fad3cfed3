/**
 * Screenshots of one moment in the light, dark and high-contrast themes, so a person can look at
 * each (README.md's "What a person sees" rule asks for all three). The theme is switched through
 * the theme picker, as a person does: code-server's workbench does not pick up a theme written into
 * the user's settings file while it runs. The picker gives the focus back to where it was.
 */
import type { Page } from 'playwright-core';
import type { Session } from './harness.js';
import { done, pending, waitFor } from './wait.js';
import { screenshot, typeIntoQuickInput } from './workbench.js';

export type ThemeKind = 'light' | 'dark' | 'high-contrast';

/** VS Code 1.100's built-in themes: their ids, their labels in the theme picker and the class each puts on `.monaco-workbench`. */
const themes: Readonly<Record<ThemeKind, { readonly name: string; readonly label: string; readonly workbenchClass: string }>> = {
  light: { name: 'Default Light Modern', label: 'Light Modern', workbenchClass: 'vs' },
  dark: { name: 'Default Dark Modern', label: 'Dark Modern', workbenchClass: 'vs-dark' },
  'high-contrast': { name: 'Default High Contrast', label: 'Dark High Contrast', workbenchClass: 'hc-black' },
};

/** The theme the workbench shows now, read from its classes. */
export async function currentTheme(page: Page): Promise<ThemeKind | 'other'> {
  const classes = ((await page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').split(/\s+/);
  const found = (Object.keys(themes) as ThemeKind[]).find((kind) => classes.includes(themes[kind].workbenchClass));
  return found ?? 'other';
}

/** Switches the workbench to `kind` and waits until it shows it (and webviews have drawn again). */
export async function setTheme(s: Session, kind: ThemeKind): Promise<void> {
  if ((await currentTheme(s.page)) === kind) return;
  // The palette ranks "Browse Color Themes in Marketplace" above the picker, so the picker's own
  // key chord opens it.
  await s.page.keyboard.press('Control+K');
  await s.page.keyboard.press('Control+T');
  // The list draws only the rows in view, so the picker is filtered by the theme's label first.
  await typeIntoQuickInput(s.page, themes[kind].label);
  // A row's aria-label is "<label>, <theme id>"; "Browse Additional Color Themes..." stays first.
  const row = s.page.locator(`.quick-input-widget .quick-input-list .monaco-list-row[aria-label$=", ${themes[kind].name}"]`).first();
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  await row.click();
  await waitFor(
    `the workbench to show the ${kind} theme`,
    async () => {
      const now = await currentTheme(s.page);
      return now === kind ? done(now) : pending(now);
    },
    { timeoutMs: 20_000 },
  );
  // Webviews receive the new theme's colours a moment after the workbench repaints.
  await s.page.waitForTimeout(1_500);
}

/**
 * Saves `NAME-light.png`, `NAME-dark.png` and `NAME-high-contrast.png` (or the kinds given), then
 * puts the theme back as it was so the scenario goes on unchanged. Returns the files' paths.
 */
export async function screenshotThemes(s: Session, name: string, kinds: readonly ThemeKind[] = ['light', 'dark', 'high-contrast']): Promise<string[]> {
  const before = await currentTheme(s.page);
  const paths: string[] = [];
  for (const kind of kinds) {
    await setTheme(s, kind);
    paths.push(await screenshot(s.page, `${name}-${kind}`));
  }
  if (before !== 'other' && before !== kinds[kinds.length - 1]) await setTheme(s, before);
  return paths;
}
