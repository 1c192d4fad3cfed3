/**
 * Text from a trajectory (an observation, a reply) as DOM nodes: node ids (`func:app/calc.py#add`)
 * and `file:line` references become links that open the file at that line, and occurrences of the
 * search text are marked. Every piece goes in as a text node, never as markup: the text is model
 * output and repository content.
 */
import { el } from '../dom.js';

export interface Location {
  readonly file: string;
  readonly line: number;
}

export type OpenLocation = (location: Location) => void;

/**
 * A node id (`kind:path#name`, `file:path`), or a path with a line (`app/calc.py:6`, `app/calc.py:4-6`).
 * Paths need a file extension, so prose with colons ("step 2: read") is not taken for one.
 */
const reference = /\b(?:(func|function|method|class|file|module|var):([\w./-]+\.\w+)(?:#([\w.]+))?|([\w./-]*[\w-]+\.[A-Za-z]\w*):(\d+)(?:-\d+)?)/g;

/** Lines where the episode saw a node, so a node id opens at its definition. */
export type NodeLines = ReadonlyMap<string, number>;

export function linkedText(text: string, open: OpenLocation, nodeLines: NodeLines, highlight: string): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const match of text.matchAll(reference)) {
    const index = match.index;
    if (index > at) nodes.push(...marked(text.slice(at, index), highlight));
    const whole = match[0];
    const location: Location =
      match[2] !== undefined ? { file: match[2], line: nodeLines.get(whole) ?? 1 } : { file: match[4] ?? '', line: Number(match[5] ?? '1') };
    const link = el(
      'a',
      { class: 'ref', title: `Open ${location.file} at line ${location.line}`, attrs: { href: '#', role: 'link' } },
      ...marked(whole, highlight),
    );
    link.addEventListener('click', (event) => {
      event.preventDefault();
      open(location);
    });
    nodes.push(link);
    at = index + whole.length;
  }
  if (at < text.length) nodes.push(...marked(text.slice(at), highlight));
  return nodes;
}

/** The text with each case-insensitive occurrence of `highlight` in a `<mark>`. */
export function marked(text: string, highlight: string): Node[] {
  if (highlight === '') return [document.createTextNode(text)];
  const hay = text.toLowerCase();
  const needle = highlight.toLowerCase();
  const nodes: Node[] = [];
  let at = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
    if (i > at) nodes.push(document.createTextNode(text.slice(at, i)));
    nodes.push(el('mark', {}, text.slice(i, i + needle.length)));
    at = i + needle.length;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}
