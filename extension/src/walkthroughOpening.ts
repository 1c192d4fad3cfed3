/**
 * Opening the Getting Started walkthrough on the first activation so that a person sees it (issue
 * 37). On a new profile VS Code opens its own welcome page as the workbench starts, in the same
 * editor a walkthrough opens in; when it comes after ours it takes that editor, and ours was never
 * seen. So ours opens once the workbench has had a moment to settle, is watched for as long again,
 * opens again when the welcome page took its place, and counts as seen only once it stayed in
 * front. Pure (the editor is behind `WalkthroughScreen`), so each case is unit-tested.
 */

/** What the editor shows: ours in front, the welcome editor showing something else, or neither (closed). */
export type WalkthroughState = 'ours' | 'replaced' | 'gone';

export interface WalkthroughScreen {
  open(): Promise<void>;
  state(): WalkthroughState;
  sleep(ms: number): Promise<void>;
}

export interface OpeningTimes {
  /** How long the workbench gets before ours opens, and how long ours must stay in front. */
  readonly settleMs: number;
  /** How long an open may take to show. */
  readonly appearMs: number;
  readonly pollMs: number;
  readonly attempts: number;
}

export const openingTimes: OpeningTimes = { settleMs: 3_000, appearMs: 10_000, pollMs: 250, attempts: 3 };

/**
 * Opens the walkthrough until a person has seen it: true once it stayed in front for `settleMs`,
 * or was in front and then closed (the person closed it); false when it never showed or each
 * attempt lost the editor to the welcome page, so the next activation tries again.
 */
export async function openUntilSeen(screen: WalkthroughScreen, times: OpeningTimes = openingTimes): Promise<boolean> {
  await screen.sleep(times.settleMs);
  for (let attempt = 0; attempt < times.attempts; attempt++) {
    await screen.open();
    if (!(await shows(screen, times))) continue;
    await screen.sleep(times.settleMs);
    if (screen.state() !== 'replaced') return true;
  }
  return false;
}

async function shows(screen: WalkthroughScreen, times: OpeningTimes): Promise<boolean> {
  for (let waited = 0; waited <= times.appearMs; waited += times.pollMs) {
    if (screen.state() === 'ours') return true;
    await screen.sleep(times.pollMs);
  }
  return false;
}
