/**
 * The nodes of a task's gold patch on the graph an episode explored: each file the patch edits (by
 * its diff header), and the definition around each changed line, found by the strongest evidence
 * at hand (protocol/codeGraphView.ts, `goldEvidences`): the file's text before the fix (a pre-image
 * the run kept, else the task's local repository, each used only when every hunk's old lines are
 * where the patch says) parsed into definitions; else the spans the trajectory recorded; else the
 * name git printed after the hunk's `@@`. A change at module level has no definition, and that is
 * not guessed at. The same placement maps an episode's own edits onto nodes.
 */
import type { NodeKind, Span } from '../protocol/graph.js';
import type { GoldEvidence } from '../protocol/codeGraphView.js';
import { diffMatches, diffPlaces, type ChangedPlace, type FileChanges } from './diffPlaces.js';
import { nodeIdOf } from './nodeIds.js';

/** A definition with its place, as a parser or a trajectory gives it. */
export interface DefinitionSpan {
  readonly id: string;
  readonly kind: NodeKind;
  readonly path: string;
  readonly span: Span;
}

/** A text that may be a file as it was at the base commit, and where it came from. */
export interface CandidateText {
  readonly evidence: 'pre-image' | 'repository';
  readonly text: string;
}

export interface GoldSources {
  /** Texts that may be the file before the fix, strongest first. */
  readonly texts: (path: string) => Promise<readonly CandidateText[]>;
  /** Parses a file's text into its definitions (the graph's own parser); absent where none is at hand. */
  readonly parse?: (path: string, text: string) => Promise<readonly DefinitionSpan[]>;
  /** The definitions the trajectory recorded, with their spans. */
  readonly recorded: readonly DefinitionSpan[];
}

export interface GoldNode {
  readonly id: string;
  readonly kind: NodeKind;
  readonly path: string;
  readonly span: Span | null;
  readonly evidence: GoldEvidence;
}

export interface Gold {
  readonly files: readonly string[];
  /** Definitions the patch changes, each once. */
  readonly functions: readonly GoldNode[];
  /** Files the patch creates, which no episode could have found. */
  readonly created: readonly string[];
  /** What could not be mapped, in sentences. */
  readonly notes: readonly string[];
}

interface FileDefinitions {
  readonly evidence: 'pre-image' | 'repository' | 'recorded-span';
  readonly definitions: readonly DefinitionSpan[];
  readonly lines: readonly string[] | undefined;
}

/** The definitions of a file from the strongest source that matches `changes`. */
async function definitionsFor(changes: FileChanges, sources: GoldSources): Promise<FileDefinitions> {
  if (sources.parse !== undefined) {
    for (const candidate of await sources.texts(changes.path)) {
      if (!diffMatches(candidate.text, changes)) continue;
      const definitions = await sources.parse(changes.path, candidate.text);
      return { evidence: candidate.evidence, definitions, lines: candidate.text.split(/\r?\n/) };
    }
  }
  return { evidence: 'recorded-span', definitions: sources.recorded.filter((d) => d.path === changes.path), lines: undefined };
}

function indentOf(line: string | undefined): number {
  return line === undefined ? 0 : line.length - line.trimStart().length;
}

/**
 * The innermost definition around a place. Code only inserted belongs to the definition around the
 * line before it only when it is indented deeper than that definition's header; otherwise (a method
 * appended after another) to the one around that. Without the file's lines that test cannot be made.
 */
export function definitionAt(place: ChangedPlace, file: FileDefinitions): DefinitionSpan | undefined {
  const around = file.definitions
    .filter((d) => d.span.start <= place.line && place.line <= d.span.end)
    .sort((a, b) => b.span.start - a.span.start || a.span.end - b.span.end);
  if (place.insertIndent === undefined || file.lines === undefined) return around[0];
  const lines = file.lines;
  return around.find((d) => indentOf(lines[d.span.start - 1]) < (place.insertIndent ?? 0));
}

/** The definition git named after a hunk's `@@`, matched to a definition of the file by name. */
function fromHunkHeader(context: string, path: string, known: readonly DefinitionSpan[]): { id: string; kind: NodeKind } | undefined {
  const m = /^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(context);
  if (m === null) return undefined;
  const name = m[3] ?? '';
  const kind: NodeKind = m[2] === 'class' ? 'class' : 'function';
  const named = known.filter((d) => d.path === path && (d.id.endsWith(`#${name}`) || d.id.endsWith(`.${name}`)));
  if (named.length === 1 && named[0] !== undefined) return { id: named[0].id, kind: named[0].kind };
  // At module level the name is the id; an indented one is a method or a nested definition whose owner the header does not name.
  return (m[1] ?? '') === '' && named.length === 0 ? { id: nodeIdOf(kind, path, name), kind } : undefined;
}

/** Nodes a diff changes, each with the evidence that placed it. */
export async function changedNodes(diff: string, sources: GoldSources): Promise<Gold> {
  const places = diffPlaces(diff);
  const functions = new Map<string, GoldNode>();
  const notes: string[] = [];
  for (const file of places.files) {
    const defs = await definitionsFor(file, sources);
    let unplaced = 0;
    for (const place of file.places) {
      const d = definitionAt(place, defs);
      if (d !== undefined) {
        if (!functions.has(d.id)) functions.set(d.id, { id: d.id, kind: d.kind, path: d.path, span: d.span, evidence: defs.evidence });
      } else if (defs.evidence === 'recorded-span') unplaced++;
    }
    if (unplaced > 0) {
      // No source and no recorded span holds these lines: the hunk headers are all that is left.
      const named = file.hunks.map((h) => fromHunkHeader(h.context, file.path, sources.recorded)).filter((n) => n !== undefined);
      for (const n of named) if (!functions.has(n.id)) functions.set(n.id, { id: n.id, kind: n.kind, path: file.path, span: null, evidence: 'hunk-header' });
      if (named.length === 0)
        notes.push(
          `${file.path}: ${unplaced} changed line${unplaced === 1 ? '' : 's'} could not be placed in a definition (no source before the fix, no recorded span, no definition in the hunk header).`,
        );
    }
  }
  if (places.created.length > 0) notes.push(`The patch creates ${places.created.join(', ')}, which no episode could have found.`);
  return { files: places.files.map((f) => f.path), functions: [...functions.values()], created: places.created, notes };
}
