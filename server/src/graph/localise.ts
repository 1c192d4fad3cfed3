/**
 * `localise(issue)`: where an issue points, strongest evidence first. In order:
 *
 * 1. the task's failure frame (the definition around its line, else the named function, then its file);
 * 2. tracebacks pasted in the text: the innermost frame in the repository that is not in a test
 *    file, then the other in-repository frames from the inside out (frames outside the repository
 *    are reported in `frames` but never anchored);
 * 3. file paths (`app/calc.py`) and dotted module names (`app.calc`) that are files of the graph;
 * 4. symbols: words in backticks, call forms `name(`, dotted `Class.method`, and plain words that
 *    are exactly a definition's name (leaving out stop words and names too common to mean anything
 *    unless they are in backticks, and definitions in test files unless the name is in backticks
 *    or the issue is about tests).
 *
 * Anchors are de-duplicated by node and capped; `nodeIds` lists the nodes they name.
 */
import type { Anchor, GraphNode } from '../protocol/graph.js';
import { findDefinitions } from './find.js';
import { isTestPath } from './nodes.js';
import { parseTraceback } from './traceback.js';
import { commonDefinitionNames, pythonBuiltins, pythonKeywords, stopWords } from './tokens.js';
import type { AnchorEvidence, IssueText, Localisation, TracebackFrame } from './types.js';
import type { GraphView } from './view.js';

/** Most anchors one issue yields. */
export const maxAnchors = 8;

const pathMention = /(?:^|[\s`'"([<])((?:[\w.-]+\/)*[\w-]+\.py)(?=$|[\s`'"),:;\]>])/gm;
const dottedMention = /(?<![\w./])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w/])/g;
const backticked = /`([^`\n]{1,160})`/g;
const callMention = /(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(/g;
// A plain word: not part of a dotted name (those are read whole above), not a call form.
const wordMention = /(?<![\w.])([A-Za-z_]\w{2,})(?!\w|\(|\.\w)/g;

class Collector {
  readonly anchors: Anchor[] = [];
  readonly ids: string[] = [];
  readonly evidence: AnchorEvidence[] = [];
  /** What the next `add` is taken from; each source sets it before adding. */
  current: AnchorEvidence = 'frame';
  private readonly seen = new Set<string>();

  constructor(private readonly view: GraphView) {}

  get full(): boolean {
    return this.anchors.length >= maxAnchors;
  }

  add(node: GraphNode | undefined): void {
    if (node === undefined || this.full || this.seen.has(node.id)) return;
    this.seen.add(node.id);
    this.ids.push(node.id);
    this.evidence.push(this.current);
    this.anchors.push(
      node.kind === 'file' ? { kind: 'file', text: node.path, id: node.id } : { kind: node.kind, text: this.view.qualifiedName(node), id: node.id },
    );
  }

  /** Files anchored so far, which make a same-named definition there the likelier one. */
  anchoredPaths(): Set<string> {
    return new Set(this.ids.map((id) => this.view.node(id)?.path ?? ''));
  }
}

function fromFailureFrame(view: GraphView, frame: NonNullable<IssueText['failure_frame']>, out: Collector): void {
  out.current = 'frame';
  const path = frame.path === undefined ? undefined : view.mapPath(frame.path);
  if (path === undefined) {
    if (frame.function !== undefined) out.add(bestNamed(view, frame.function, out)[0]);
    return;
  }
  const around = frame.lineno === undefined ? undefined : view.nodeAt(path, frame.lineno);
  if (around !== undefined && around.kind !== 'file') out.add(around);
  else if (frame.function !== undefined) {
    const name = frame.function;
    out.add(view.definitionsIn(path).find((n) => n.name === name || view.qualifiedName(n) === name));
  }
  out.add(view.node(`file:${path}`));
}

function framesOf(view: GraphView, text: string): TracebackFrame[] {
  return parseTraceback(text).map((raw) => {
    const mapped = view.mapPath(raw.path);
    return { path: mapped ?? raw.path, line: raw.line, function: raw.function, inRepo: mapped !== undefined };
  });
}

function fromFrames(view: GraphView, frames: readonly TracebackFrame[], out: Collector): void {
  const inner = frames.filter((f) => f.inRepo).reverse();
  const ordered = [...inner.filter((f) => !isTestPath(f.path)).slice(0, 1), ...inner];
  out.current = 'traceback';
  for (const frame of ordered) out.add(view.nodeAt(frame.path, frame.line));
}

function fromPaths(view: GraphView, text: string, out: Collector): void {
  out.current = 'path';
  for (const match of text.matchAll(pathMention)) {
    const written = match[1] ?? '';
    const path = view.mapPath(written);
    if (path !== undefined) out.add(view.node(`file:${path}`));
    // A bare file name (`numberformat.py`) names the file when only one file outside the tests has it.
    else if (!written.includes('/')) {
      const named = view.nodes().filter((n) => n.kind === 'file' && n.name === written && n.test !== true);
      if (named.length === 1) out.add(named[0]);
    }
  }
  for (const match of text.matchAll(dottedMention)) {
    const file = view.modules.absolute(match[1] ?? '');
    if (file !== undefined) out.add(view.node(`file:${file}`));
  }
}

/** Definitions of a name, likeliest first: in a file already anchored, then code before tests, then shorter paths. */
function bestNamed(view: GraphView, name: string, out: Collector): GraphNode[] {
  const anchored = out.anchoredPaths();
  return findDefinitions(view, name, undefined)
    .map((node, order) => ({ node, order }))
    .sort((a, b) => Number(!anchored.has(a.node.path)) - Number(!anchored.has(b.node.path)) || a.order - b.order)
    .map((x) => x.node);
}

function ignorable(word: string, quoted: boolean): boolean {
  const lower = word.toLowerCase();
  if (pythonKeywords.has(word) || stopWords.has(lower)) return true;
  return !quoted && (commonDefinitionNames.has(word) || pythonBuiltins.has(word));
}

/**
 * Whether an issue is about the tests themselves (its title says test, testing, unittest…). Otherwise
 * a word of its prose that also names a test, a test helper or test data is not evidence of where
 * the bug is: common words otherwise anchor on test methods and fill the anchors with them.
 */
export function aboutTests(issue: IssueText): boolean {
  // Not `pytest` or `fixture`: in pytest's own repository those name the product, not its tests.
  return /\b(tests?|testing|unittest|conftest)\b/i.test(issue.title ?? '');
}

function fromSymbols(view: GraphView, text: string, out: Collector, keepTests: boolean): void {
  const tried = new Set<string>();
  const take = (name: string, quoted: boolean, count: number, evidence: AnchorEvidence) => {
    out.current = evidence;
    const last = name.split('.').pop() ?? name;
    if (name === '' || tried.has(name) || ignorable(last, quoted)) return;
    tried.add(name);
    // A name in backticks is taken as written, tests included; a plain word only outside tests.
    const found = bestNamed(view, name, out).filter((node) => keepTests || quoted || !isTestPath(node.path));
    for (const node of found.slice(0, count)) out.add(node);
  };
  for (const match of text.matchAll(backticked)) {
    // `pkg/mod.py::Class::method` is kept whole; otherwise the leading dotted name (`f` of `f(x)`).
    const inner = (match[1] ?? '').trim().replace(/\(.*$/s, '');
    take(inner.includes('::') ? inner : (/^[A-Za-z_][\w.]*/.exec(inner)?.[0] ?? ''), true, 2, 'quoted');
  }
  for (const match of text.matchAll(callMention)) take(match[1] ?? '', false, 2, 'call');
  for (const match of text.matchAll(dottedMention)) take(match[1] ?? '', false, 1, 'dotted');
  for (const match of text.matchAll(wordMention)) {
    const word = match[1] ?? '';
    if (view.definitionsNamed(word).length > 0) take(word, false, 1, 'word');
  }
}

/** The issue's whole text as one query: title, body and failing assertion. */
export function issueQuery(issue: IssueText): string {
  return [issue.title, issue.body, issue.top_assert].filter((t): t is string => t !== undefined && t !== '').join('\n');
}

export function localiseIssue(view: GraphView, issue: IssueText): Localisation {
  const out = new Collector(view);
  if (issue.failure_frame !== undefined) fromFailureFrame(view, issue.failure_frame, out);
  const text = issueQuery(issue);
  const frames = framesOf(view, text);
  fromFrames(view, frames, out);
  fromPaths(view, text, out);
  fromSymbols(view, text, out, aboutTests(issue));
  return { anchors: out.anchors, frames, nodeIds: out.ids, evidence: out.evidence };
}
