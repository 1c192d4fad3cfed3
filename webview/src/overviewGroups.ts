/**
 * How the overview lays out its settings, as plain data so it is tested without a page: the Verl
 * settings grouped under their config section (`paths`, `resources`, …) in the order the table
 * lists them, each keyed by the rest of its path, and long values and keys cut into the pieces a
 * narrow column may break between.
 */
import type { VerlSetting } from '../../server/src/protocol/overview.js';

export interface SettingGroup {
  /** The config section, the first segment of each key: `planner_sampling`. */
  readonly section: string;
  readonly rows: readonly { readonly rest: string; readonly setting: VerlSetting }[];
}

/** Groups in order of each section's first row; a key with no dot is its own section's one row. */
export function groupSettings(settings: readonly VerlSetting[]): SettingGroup[] {
  const groups = new Map<string, { rest: string; setting: VerlSetting }[]>();
  for (const setting of settings) {
    const dot = setting.key.indexOf('.');
    const section = dot < 0 ? setting.key : setting.key.slice(0, dot);
    const rows = groups.get(section) ?? [];
    rows.push({ rest: dot < 0 ? setting.key : setting.key.slice(dot + 1), setting });
    groups.set(section, rows);
  }
  return [...groups].map(([section, rows]) => ({ section, rows }));
}

/**
 * `text` cut after each `/`, `.` and `,` (and the space after a comma stays with it), so a path,
 * a dotted key or a list wraps at a separator a person reads as one, not in the middle of a name.
 * Joining the pieces gives `text` back.
 */
export function breakPieces(text: string): string[] {
  return text.split(/(?<=[/.,](?! ))|(?<=, )/).filter((piece) => piece !== '');
}
