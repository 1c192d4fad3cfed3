/**
 * Code-graph nodes named by an action (`nodes`, `focus_ids`) as a table a person reads: kind, name
 * and where (`path:line`, a link that opens the file at the line, in the workspace or as the episode
 * recorded it). What the episode's observations said of a node (its kind, name, path and line) is
 * used when known; otherwise the id itself (`func:app/calc.py#add`, protocol/graph.ts) is read.
 */
import { el } from '../dom.js';
import { marked, type OpenLocation } from './linkedText.js';
import { nodeFromId } from './nodeIds.js';

export type { KnownNode } from './nodeIds.js';
import type { KnownNode } from './nodeIds.js';

export type KnownNodes = ReadonlyMap<string, KnownNode>;

export function nodeTable(ids: readonly string[], known: KnownNodes, open: OpenLocation, highlight: string): HTMLElement {
  if (ids.length === 0) return el('p', { class: 'hint' }, 'None.');
  const rows = ids.map((id) => {
    const node = known.get(id) ?? nodeFromId(id);
    if (node === undefined)
      return el(
        'tr',
        {},
        el('td', { class: 'muted' }, '?'),
        el('td', {}, el('code', {}, ...marked(id, highlight))),
        el('td', { class: 'hint' }, 'not a code-graph node id'),
      );
    const line = 'line' in node && typeof node.line === 'number' ? node.line : undefined;
    const where = line === undefined ? node.path : `${node.path}:${line}`;
    const link = el(
      'a',
      { class: 'ref', attrs: { href: '#', role: 'link' }, title: `Open ${node.path}${line === undefined ? '' : ` at line ${line}`}` },
      ...marked(where, highlight),
    );
    link.addEventListener('click', (event) => {
      event.preventDefault();
      open({ file: node.path, line: line ?? 1 });
    });
    return el(
      'tr',
      { attrs: { 'data-node': id } },
      el('td', {}, node.test === true ? `${node.kind} · test` : node.kind),
      el('td', { title: id }, el('code', {}, ...marked(node.name, highlight))),
      el('td', {}, link),
    );
  });
  return el(
    'table',
    { class: 'nodes node-list' },
    el('thead', {}, el('tr', {}, el('th', {}, 'kind'), el('th', {}, 'name'), el('th', {}, 'where'))),
    el('tbody', {}, ...rows),
  );
}
