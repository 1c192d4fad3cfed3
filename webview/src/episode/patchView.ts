/**
 * A patch drawn as a diff: per file a head (its path, a link that opens it at the first changed
 * line, what the patch does to it), then each hunk's header and its lines with old and new line
 * numbers, added and removed lines coloured with the theme's diff colours (the same variables VS
 * Code's diff editor uses). Every line goes in as text; a patch is repository content and model
 * output. Text that is not a unified diff is shown as it is, with why.
 */
import { el } from '../dom.js';
import type { OpenLocation } from './linkedText.js';
import { marked } from './linkedText.js';
import { fileSummary, type PatchFile, type PatchLine, type PatchModel } from './patchModel.js';

/** Lines drawn per patch before the rest is left to the diff editor (a generated file can have thousands). */
export const maxDrawnLines = 400;

const signs: Record<PatchLine['kind'], string> = { add: '+', del: '-', context: ' ', note: '' };

export function patchView(model: PatchModel, open: OpenLocation, highlight: string): HTMLElement {
  if (!model.ok) {
    return el(
      'div',
      { class: 'patch' },
      el('p', { class: 'hint' }, `Not a unified diff (${model.problem}); shown as written:`),
      el('pre', { class: 'code' }, ...marked(model.text, highlight)),
    );
  }
  if (model.files.length === 0) return el('div', { class: 'patch' }, el('p', { class: 'hint' }, 'An empty patch: it changes nothing.'));
  let budget = maxDrawnLines;
  const files = model.files.map((file) => {
    const drawn = fileView(file, open, highlight, budget);
    budget -= drawn.lines;
    return drawn.node;
  });
  const total = model.files.reduce((n, f) => n + f.hunks.reduce((m, h) => m + h.lines.length, 0), 0);
  return el(
    'div',
    { class: 'patch' },
    ...files,
    total > maxDrawnLines
      ? el('p', { class: 'hint' }, `${total - maxDrawnLines} more lines are not drawn here; open the patch in the diff editor to read them all.`)
      : null,
  );
}

function fileView(file: PatchFile, open: OpenLocation, highlight: string, budget: number): { node: HTMLElement; lines: number } {
  const link = el(
    'a',
    { class: 'ref patch-path', attrs: { href: '#', role: 'link' }, title: `Open ${file.path} at line ${file.firstLine}` },
    ...marked(file.path, highlight),
  );
  link.addEventListener('click', (event) => {
    event.preventDefault();
    open({ file: file.path, line: file.firstLine });
  });
  const head = el('div', { class: 'patch-head' }, link, el('span', { class: `patch-status ${file.status}` }, fileSummary(file)));
  const body = el('div', { class: 'patch-body', attrs: { role: 'table', 'aria-label': `Changes to ${file.path}` } });
  let drawn = 0;
  for (const hunk of file.hunks) {
    if (drawn >= budget) break;
    body.append(
      el(
        'div',
        { class: 'patch-row hunk', attrs: { role: 'row' } },
        el('span', { class: 'ln-old' }),
        el('span', { class: 'ln-new' }),
        el('span', { class: 'sign' }),
        el('span', { class: 'text' }, hunk.header),
      ),
    );
    for (const line of hunk.lines) {
      if (drawn >= budget) break;
      drawn++;
      body.append(
        el(
          'div',
          { class: `patch-row ${line.kind}`, attrs: { role: 'row', 'data-kind': line.kind } },
          el('span', { class: 'ln-old' }, line.oldLine === null ? '' : String(line.oldLine)),
          el('span', { class: 'ln-new' }, line.newLine === null ? '' : String(line.newLine)),
          el('span', { class: 'sign', attrs: { 'aria-label': line.kind === 'add' ? 'added' : line.kind === 'del' ? 'removed' : '' } }, signs[line.kind]),
          el('span', { class: 'text' }, ...marked(line.text, highlight)),
        ),
      );
    }
  }
  return { node: el('div', { class: 'patch-file', attrs: { 'data-path': file.path, 'data-status': file.status } }, head, body), lines: drawn };
}
