/**
 * A JSON document read for a person: its value, the syntax errors at their line and column, and the
 * line and column of any key path in it, so a reader of another tool's file can say where a
 * problem is. Valid JSON takes the fast path (`JSON.parse`); a broken file is read again by
 * jsonc-parser, which recovers what it can, so a file with one bad comma still shows the rest.
 * Dataset lines are read by tasks/jsonScanner.ts instead: it says why (the validation benchmark),
 * and it recovers nothing, which a trajectory file that a person opens needs.
 */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

/** Strict JSON: jsonc-parser's comments and trailing commas are syntax errors here. */
const strictJson = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false } as const;

export interface JsonPosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

export interface JsonDocument {
  /** The value, or what could be recovered of it when the text is not valid JSON. */
  readonly value: unknown;
  /** `line 3, column 14: expected a comma` for each syntax error; empty for valid JSON. */
  readonly syntaxErrors: readonly string[];
  /** Where the value at `path` starts (the nearest existing parent when the path goes further than the document). */
  locate(path: readonly (string | number)[]): JsonPosition | undefined;
}

export function readJsonDocument(text: string): JsonDocument {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  const syntaxErrors: string[] = [];
  try {
    value = JSON.parse(body);
  } catch {
    const errors: ParseError[] = [];
    try {
      value = parse(body, errors, strictJson);
    } catch (error) {
      // jsonc-parser recurses once per level: a document nested thousands deep exhausts the stack.
      if (!(error instanceof RangeError)) throw error;
      return { value: undefined, syntaxErrors: ['the document is nested too deeply to be read'], locate: () => undefined };
    }
    const lines = lineStarts(body);
    for (const e of errors.slice(0, 20)) {
      const at = positionOf(lines, e.offset);
      syntaxErrors.push(`line ${at.line}, column ${at.column}: ${describe(printParseErrorCode(e.error))}`);
    }
    if (errors.length > 20) syntaxErrors.push(`and ${errors.length - 20} more syntax errors`);
  }
  // The tree is built only when someone asks where something is, so a valid file pays nothing for it.
  let tree: { root: Node | undefined; lines: number[] } | undefined;
  const locate = (path: readonly (string | number)[]): JsonPosition | undefined => {
    tree ??= { root: treeOf(body), lines: lineStarts(body) };
    if (tree.root === undefined) return undefined;
    for (let n = path.length; n >= 0; n--) {
      const node = findNodeAtLocation(tree.root, [...path.slice(0, n)]);
      // A property's value node: its key (one level up) is where a person looks.
      if (node !== undefined) return positionOf(tree.lines, node.parent?.type === 'property' ? node.parent.offset : node.offset);
    }
    return undefined;
  };
  return { value, syntaxErrors, locate };
}

/** The syntax tree, or none for a document too deeply nested for jsonc-parser's recursion. */
function treeOf(body: string): Node | undefined {
  try {
    return parseTree(body, [], strictJson);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** `InvalidSymbol` → `invalid symbol`, the way the rest of a message reads. */
function describe(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function positionOf(starts: readonly number[], offset: number): JsonPosition {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
}
