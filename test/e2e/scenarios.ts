/**
 * The frame every end-to-end scenario runs in: the session of its file, a screenshot on success
 * (taken by the scenario at the moment that shows the behaviour) and, on failure,
 * `<name>-failed.png` plus the extension's and the extension host's logs in the error, so a report
 * shows why. Also reads numbers the extension logs.
 */
import assert from 'node:assert/strict';
import { readLogs, tail, type Session } from './harness.js';
import { done, pending, waitFor } from './wait.js';
import { screenshot } from './workbench.js';
import { errorMessage } from '../../server/src/util/errors.js';

export class Scenarios {
  session: Session | undefined;
  /** Set by the first scenario; the later ones fail at once when the extension never activated. */
  activation: 'pending' | 'ready' | 'failed' = 'pending';
  readonly timings: Record<string, unknown> = {};

  current(): Session {
    assert.ok(this.session !== undefined, 'code-server did not start; see the failure of the `before` hook.');
    return this.session;
  }

  async run(name: string, body: (s: Session) => Promise<void>): Promise<void> {
    const s = this.current();
    assert.notEqual(this.activation, 'failed', 'The extension did not activate or its server did not start (see the activation test); nothing to check.');
    const started = Date.now();
    try {
      // Close whatever a previous scenario may have left open (a menu, a widget). A hover (a
      // task's tooltip) stays while the pointer rests on its row and covers what is under it, so
      // the pointer first moves to the editor area, where nothing hovers.
      const size = s.page.viewportSize();
      if (size !== null) await s.page.mouse.move(Math.round(size.width * 0.75), Math.round(size.height * 0.6));
      await s.page.keyboard.press('Escape');
      await body(s);
      this.timings[`scenario:${name}`] = Date.now() - started;
    } catch (error) {
      await screenshot(s.page, `${name}-failed`).catch(() => undefined);
      const ext = await extensionLog(s);
      const host = await readLogs(s, /exthost\.log$/);
      throw new Error(
        `${errorMessage(error)}\n\n--- Graph Planner output channel ---\n${tail(ext) || '(empty: the extension never wrote to it)'}` +
          `\n\n--- extension host log ---\n${tail(host, 25)}`,
        { cause: error },
      );
    }
  }
}

/** The lines our output channel ("Graph Planner") has written so far. */
export async function extensionLog(s: Session): Promise<string> {
  return readLogs(s, /Graph Planner\.log$/);
}

/** Reads a number of milliseconds out of the extension's output channel, waiting for the line. */
export async function loggedMs(s: Session, what: string, pattern: RegExp): Promise<number> {
  return waitFor(
    `the Graph Planner output channel to log "${what}"`,
    async () => {
      const log = await extensionLog(s);
      const m = pattern.exec(log);
      return m?.[1] !== undefined ? done(Number(m[1])) : pending(log === '' ? '(no Graph Planner output channel yet)' : tail(log));
    },
    { timeoutMs: 60_000 },
  );
}
