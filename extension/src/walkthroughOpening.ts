/**
 * Opening the Getting Started walkthrough on the first activation so that a person sees it (issue
 * 37). On a new profile VS Code opens its own welcome page as the workbench starts, in the same
 * editor a walkthrough opens in; when it comes after ours it takes that editor, and ours was never
 * seen. So ours opens once the workbench has had a moment to settle, is watched for as long again,
 * opens again when another editor came in front of it, and counts as seen only once it stayed in
 * front. Pure (the editor is behind `WalkthroughScreen`), so each case is unit-tested.
 */

/** What the editor shows: ours in front, the welcome editor open behind another editor, or neither (closed). */
export type WalkthroughState = 'ours' | 'replaced' | 'gone';

/** What the extension API tells of an editor tab: whether its input has a type the API knows, and whether it is in front. */
export interface TabShape {
  readonly label: string;
  readonly typed: boolean;
  readonly isActive: boolean;
  readonly inActiveGroup: boolean;
}

/**
 * Where the walkthrough is, from the editor's tabs. The welcome editor, which shows every
 * walkthrough, is the tab whose input has no type the API knows. Which walkthrough it shows cannot
 * be read from its label: VS Code names the tab `Walkthrough: <title>` but reports the name to the
 * API when the shown walkthrough changes, before it sets the new title, so the API's label is one
 * change behind (`Welcome` while ours shows after the welcome list, as the first activation's log in
 * code-server 4.100.3 showed). So ours counts as in front when the welcome editor is the active tab
 * of the active group right after ours was opened into it (`open` goes back to the welcome list
 * first, so it never shows another walkthrough then); it is replaced when another editor came in
 * front of it.
 */
export function walkthroughStateOf(tabs: readonly TabShape[]): WalkthroughState {
  const welcome = tabs.filter((tab) => !tab.typed);
  if (welcome.some((tab) => tab.isActive && tab.inActiveGroup)) return 'ours';
  return welcome.length > 0 ? 'replaced' : 'gone';
}

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
