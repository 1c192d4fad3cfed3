/**
 * Every finding's preferred fix applied to a config at once: what `gp config check --fix` writes
 * to the file and what the editor's "Fix All" (`source.fixAll`, also run on save when a person
 * turns that on) changes in the document, so both fix the same findings the same way. A
 * finding's preferred fix is the one a person most likely wants (`protocol/findings.ts`); a
 * finding without one is a choice left to the person and is not touched.
 */
import type { LocatedFinding } from './check.js';
import { applyYamlEdits } from './yamlEdit.js';

export interface PreferredFixes {
  /** The text with the fixes applied. */
  readonly text: string;
  /** The findings whose preferred fix changed the text, in the order they were applied. */
  readonly fixed: readonly LocatedFinding[];
}

/**
 * Applies each finding's preferred fix in turn, each to the text the previous one left (a fix
 * names key paths, not offsets, so an earlier fix does not move it); a fix that no longer applies
 * cleanly or changes nothing is skipped. Findings a flag caused are left alone: the file is not
 * where they come from.
 */
export function applyPreferredFixes(text: string, findings: readonly LocatedFinding[]): PreferredFixes {
  let current = text;
  const fixed: LocatedFinding[] = [];
  for (const f of findings) {
    const fix = f.flag === undefined ? f.fixes.find((x) => x.preferred === true) : undefined;
    if (!fix) continue;
    const next = applyYamlEdits(current, fix.edits);
    if (next === undefined || next === current) continue;
    current = next;
    fixed.push(f);
  }
  return { text: current, fixed };
}
