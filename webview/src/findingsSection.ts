/**
 * The findings of the document (schema and preflight), errors first. Each finding is a button that
 * shows its range in the YAML editor, and beside it a button per quick fix the editor offers for it,
 * which applies that fix as the light bulb would (the extension asks the editor for the action).
 */
import type { OverviewFinding, OverviewFix, OverviewRange } from '../../server/src/protocol/overview.js';
import { el, plural } from './dom.js';

const severityLabels: Record<OverviewFinding['severity'], string> = { error: 'Error', warning: 'Warning', info: 'Note' };

export interface FindingActions {
  readonly reveal: (range: OverviewRange) => void;
  readonly applyFix: (finding: OverviewFinding, fix: OverviewFix) => void;
}

export function findingsSection(findings: readonly OverviewFinding[], actions: FindingActions): HTMLElement {
  const count = (s: OverviewFinding['severity']) => findings.filter((f) => f.severity === s).length;
  const fixable = findings.filter((f) => f.fixes.length > 0).length;
  const summary =
    findings.length === 0
      ? 'No findings: the checks found nothing to report.'
      : `${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('info'), 'note')}. Click one to show it in the file${fixable > 0 ? '; a fix button applies that quick fix' : ''}.`;
  return el(
    'section',
    { attrs: { 'aria-labelledby': 'findings-heading', id: 'findings' } },
    el('h2', { attrs: { id: 'findings-heading' } }, 'Preflight'),
    el('p', { class: 'hint' }, summary),
    el('ul', { class: 'findings' }, ...findings.map((f) => findingItem(f, actions))),
  );
}

function findingItem(f: OverviewFinding, actions: FindingActions): HTMLElement {
  const button = el(
    'button',
    { class: `finding ${f.severity}`, attrs: { 'data-code': f.code }, title: 'Show in the YAML file' },
    el('span', { class: 'severity' }, severityLabels[f.severity]),
    el('span', { class: 'message' }, f.message),
    el('span', { class: 'where' }, `${f.code} · Ln ${f.range.start.line + 1}, Col ${f.range.start.character + 1}`),
  );
  button.addEventListener('click', () => actions.reveal(f.range));
  const fixes =
    f.fixes.length > 0 &&
    el('div', { class: 'fixes', attrs: { role: 'group', 'aria-label': `Quick fixes for ${f.code}` } }, ...f.fixes.map((fix) => fixButton(f, fix, actions)));
  return el('li', { class: `finding-item ${f.severity}` }, button, fixes);
}

function fixButton(f: OverviewFinding, fix: OverviewFix, actions: FindingActions): HTMLElement {
  const button = el(
    'button',
    {
      class: `fix${fix.preferred ? ' preferred' : ''}`,
      attrs: { 'data-code': f.code },
      title: `Quick fix: ${fix.title} (as the editor's light bulb applies it)`,
    },
    fix.title,
  );
  button.addEventListener('click', () => actions.applyFix(f, fix));
  return button;
}
