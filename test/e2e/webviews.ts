/**
 * Finding a webview's page in the workbench: VS Code nests each webview in two frames, and several
 * may be visible at once (a report and the viewer it opened, a comparison and a trajectory).
 */
import type { FrameLocator, Page } from 'playwright-core';
import { done, pending, waitFor } from './wait.js';

/** The visible webview whose page holds `selector`. */
export async function webviewWith(page: Page, selector: string, what: string, timeoutMs = 30_000): Promise<FrameLocator> {
  return waitFor(
    what,
    async () => {
      const count = await page.locator('iframe.webview.ready >> visible=true').count();
      for (let i = 0; i < count; i++) {
        const frame = page.frameLocator('iframe.webview.ready >> visible=true').nth(i).frameLocator('iframe#active-frame');
        if (
          (await frame
            .locator(selector)
            .count()
            .catch(() => 0)) > 0
        )
          return done(frame);
      }
      return pending(`${count} visible webviews, none with ${selector}`);
    },
    { timeoutMs },
  );
}
