/**
 * Finding a webview's page in the workbench: VS Code nests each webview in two frames, and several
 * may be visible at once (a report and the viewer it opened, a comparison and a trajectory).
 */
import type { FrameLocator, Page } from 'playwright-core';
import { done, pending, waitFor } from './wait.js';

/** The visible webview whose page holds `selector` now, if one does. */
export async function visibleWebviewWith(page: Page, selector: string): Promise<FrameLocator | undefined> {
  const count = await page.locator('iframe.webview.ready >> visible=true').count();
  for (let i = 0; i < count; i++) {
    const frame = page.frameLocator('iframe.webview.ready >> visible=true').nth(i).frameLocator('iframe#active-frame');
    if (
      (await frame
        .locator(selector)
        .count()
        .catch(() => 0)) > 0
    )
      return frame;
  }
  return undefined;
}

/** The visible webview whose page holds `selector`, once one does. */
export async function webviewWith(page: Page, selector: string, what: string, timeoutMs = 30_000): Promise<FrameLocator> {
  return waitFor(
    what,
    async () => {
      const frame = await visibleWebviewWith(page, selector);
      return frame !== undefined
        ? done(frame)
        : pending(`${await page.locator('iframe.webview.ready >> visible=true').count()} visible webviews, none with ${selector}`);
    },
    { timeoutMs },
  );
}

/** Whether a trajectory viewer (its step list) is visible now: what opening an episode's row waits for. */
export function viewerShown(page: Page): () => Promise<boolean> {
  return async () => (await visibleWebviewWith(page, '#step-list')) !== undefined;
}
