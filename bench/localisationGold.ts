/**
 * The gold of one instance on a release's graph: the patch's files that the release has, and the
 * definitions its hunks edit, named as `path#Qualified.name` so that they match across graphs and
 * rankers by name, never by line. A changed line's definition is the innermost one the graph puts
 * around it (a class when the line is in its body outside any method); a module-level edit has none.
 */
import type { CodeGraph } from '../server/src/graph/index.js';
import type { GraphNode } from '../server/src/protocol/graph.js';
import type { ChangeTarget, GoldPatch } from './localisationDiff.js';
import { fileLineOf, fileLines, placeHunk, type HunkLocation, type Placement } from './localisationLocate.js';

export interface InstanceGold {
  /** Gold files the release has: the ones scored. */
  readonly files: readonly string[];
  /** Gold files the release lacks. */
  readonly missingFiles: readonly string[];
  /** Files the patch creates, which nothing could localise. */
  readonly created: readonly string[];
  readonly definitions: readonly string[];
  /** Hunks by how they were placed in the release's file. */
  readonly hunks: Readonly<Record<Placement | 'not located', number>>;
  /** Why the instance is not scored for files, when it is not. */
  readonly filesSkip?: string;
  /** Why the instance is not scored for functions, when it is not. */
  readonly functionsSkip?: string;
}

const definitionId = /^(?:func|method|class):(.*?)(?:@\d+)?$/;

/** `method:a/b.py#Cls.meth@2` → `a/b.py#Cls.meth`; undefined for a file node. */
export function qualifiedKey(id: string): string | undefined {
  return definitionId.exec(id)?.[1];
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function parentOf(graph: CodeGraph, node: GraphNode): GraphNode | undefined {
  const edge = graph.edgesOf(node.id).find((e) => e.kind === 'contains' && e.dst === node.id);
  return edge === undefined ? undefined : graph.node(edge.src);
}

/**
 * The definition a change falls in. Code inserted at a point (or, on the fixed side, removed from
 * it) belongs to the definition around the line before the point only when it is indented deeper
 * than that definition's header; otherwise (a method appended after another) it belongs to the
 * enclosing one.
 */
function definitionAt(graph: CodeGraph, path: string, lines: readonly string[], location: HunkLocation, target: ChangeTarget): GraphNode | undefined {
  if (target.kind === 'line') return graph.nodeAt(path, fileLineOf(location, target.index, lines.length));
  const anchor = target.after >= 0 ? target.after : target.before >= 0 ? target.before : 0;
  let node = graph.nodeAt(path, fileLineOf(location, anchor, lines.length));
  while (node !== undefined && node.kind !== 'file' && indentOf(lines[node.span.start - 1] ?? '') >= target.indent) node = parentOf(graph, node);
  return node;
}

/** The instance's gold on `graph`, the graph of the release standing for its base commit. */
export function goldOn(patch: GoldPatch, graph: CodeGraph): InstanceGold {
  const files: string[] = [];
  const missingFiles: string[] = [];
  const definitions = new Set<string>();
  const hunks: Record<Placement | 'not located', number> = { 'pre-image exact': 0, 'post-image exact': 0, 'pre-image tolerant': 0, 'not located': 0 };
  for (const file of patch.files) {
    const text = graph.fileText(file.path);
    if (text === undefined) {
      missingFiles.push(file.path);
      continue;
    }
    files.push(file.path);
    const lines = fileLines(text);
    for (const hunk of file.hunks) {
      const placed = placeHunk(lines, hunk);
      if (placed === undefined) {
        hunks['not located'] += 1;
        continue;
      }
      hunks[placed.how] += 1;
      for (const target of placed.targets) {
        const node = definitionAt(graph, file.path, lines, placed.location, target);
        const key = node === undefined ? undefined : qualifiedKey(node.id);
        if (key !== undefined) definitions.add(key);
      }
    }
  }
  const gold = { files, missingFiles, created: patch.created, definitions: [...definitions], hunks };
  return { ...gold, ...skips(gold, patch) };
}

function skips(gold: Omit<InstanceGold, 'filesSkip' | 'functionsSkip'>, patch: GoldPatch): Pick<InstanceGold, 'filesSkip' | 'functionsSkip'> {
  const filesSkip = patch.files.length === 0 ? 'the patch only creates files' : gold.files.length === 0 ? 'no file the patch edits is in the sdist' : undefined;
  const functionsSkip =
    filesSkip ??
    (gold.missingFiles.length > 0
      ? 'a file the patch edits is not in the sdist'
      : gold.hunks['not located'] > 0
        ? 'a hunk could not be located in the sdist'
        : gold.definitions.length === 0
          ? 'the patch edits module-level code only'
          : undefined);
  return { ...(filesSkip === undefined ? {} : { filesSkip }), ...(functionsSkip === undefined ? {} : { functionsSkip }) };
}
