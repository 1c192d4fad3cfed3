/**
 * One Python file's parse result: its definitions (classes, functions, methods, with spans,
 * signatures and docstrings), its import statements, and per definition the calls it makes, the
 * bases it names and the identifiers it uses. These raw facts are kept per file so that edges can
 * be resolved again, without parsing, when other files change.
 *
 * Every cursor step into the wasm parser costs about as much as a small JavaScript function, so
 * the tree is walked with one `TreeCursor`, through statements only (module, blocks, compound
 * statements, definitions), and only into statements whose text holds `def`, `class` or
 * `import`; a definition's header and docstring are read from its text (`pythonText.ts`), and
 * calls and identifiers from one scan of the file (`lexer.ts`).
 */
import type { Language, Tree, TreeCursor } from 'web-tree-sitter';
import type { Span } from '../protocol/graph.js';
import { scanCode } from './lexer.js';
import { baseNames, docstringLiteralAt, docstringText, firstLine, oneLine, parseHeader, parseImportStatement, type RawImport } from './pythonText.js';
import { pythonKeywords } from './tokens.js';

export type DefinitionKind = 'class' | 'function' | 'method';

export interface Definition {
  readonly kind: DefinitionKind;
  readonly name: string;
  /** Dotted through the enclosing definitions: `Outer.Inner.method`, `outer.inner`. */
  readonly qualName: string;
  /** Index of the enclosing definition in `FileParse.definitions`, or -1 at module level. */
  readonly parent: number;
  /** The whole definition, decorators included, 1-based inclusive. */
  readonly span: Span;
  /** UTF-16 offsets of the `def`/`class` keyword (after the decorators) and of the definition's end. */
  readonly headStart: number;
  readonly end: number;
  readonly signature: string;
  /** First line of the docstring. */
  readonly docstring: string | undefined;
  /** The start of the docstring, for search. */
  readonly docText: string;
  /** Base classes as written (`A`, `mod.B`); empty for functions. */
  readonly bases: readonly string[];
  /** Callees as dotted chains (`f`, `m.f`, `self.g`, `super.g`, `?.g`), each once. */
  readonly calls: readonly string[];
  /** Identifiers used in the body, each once, capped. */
  readonly identifiers: readonly string[];
}

export interface FileParse {
  readonly path: string;
  readonly lineCount: number;
  /** First line of the module docstring. */
  readonly docstring: string | undefined;
  readonly docText: string;
  /** In source order, enclosing definitions before the ones they enclose. */
  readonly definitions: readonly Definition[];
  readonly imports: readonly RawImport[];
}

/** Most identifiers remembered per definition for search. */
const identifierCap = 48;
/** Characters of a docstring kept for search. */
const docTextCap = 400;

/** Node-type and field ids of the Python grammar, looked up once per language. */
export class PythonSyntax {
  readonly functionDefinition: number;
  readonly classDefinition: number;
  readonly decoratedDefinition: number;
  readonly blocks: ReadonlySet<number>;
  readonly comment: number;
  readonly imports: ReadonlySet<number>;
  /** Statements whose children may hold definitions or imports. */
  readonly containers: ReadonlySet<number>;

  constructor(language: Language) {
    const ids = (names: readonly string[]): Set<number> => {
      const out = new Set<number>();
      for (let id = 0; id < language.nodeTypeCount; id += 1) {
        const type = language.nodeTypeForId(id);
        if (type !== null && names.includes(type) && language.nodeTypeIsNamed(id)) out.add(id);
      }
      return out;
    };
    const one = (name: string): number => {
      const found = [...ids([name])];
      if (found.length !== 1 || found[0] === undefined) throw new Error(`The Python grammar has ${found.length} node types named ${name}`);
      return found[0];
    };
    this.functionDefinition = one('function_definition');
    this.classDefinition = one('class_definition');
    this.decoratedDefinition = one('decorated_definition');
    this.blocks = ids(['block']);
    this.comment = one('comment');
    this.imports = ids(['import_statement', 'import_from_statement']);
    this.containers = ids([
      'module',
      'block',
      'if_statement',
      'elif_clause',
      'else_clause',
      'try_statement',
      'except_clause',
      'except_group_clause',
      'finally_clause',
      'with_statement',
      'for_statement',
      'while_statement',
      'match_statement',
      'case_clause',
      'ERROR',
    ]);
  }
}

const syntaxes = new WeakMap<Language, PythonSyntax>();

/** The ids of a language, looked up on first use; the language object lives as long as the process. */
export function syntaxFor(language: Language): PythonSyntax {
  let syntax = syntaxes.get(language);
  if (syntax === undefined) {
    syntax = new PythonSyntax(language);
    syntaxes.set(language, syntax);
  }
  return syntax;
}

/** A definition while its children are being read. */
interface Draft {
  kind: DefinitionKind;
  name: string;
  qualName: string;
  parent: number;
  span: Span;
  headStart: number;
  end: number;
  signature: string;
  docstring: string | undefined;
  docText: string;
  bases: readonly string[];
  calls: Set<string>;
  identifiers: Set<string>;
}

class Walker {
  readonly definitions: Draft[] = [];
  readonly imports: RawImport[] = [];

  constructor(
    private readonly text: string,
    private readonly cursor: TreeCursor,
    private readonly syntax: PythonSyntax,
    /** Offsets of the `def`, `class` and `import` keywords, ascending. */
    private readonly keywords: readonly number[],
  ) {}

  /**
   * Whether the node under the cursor holds a `def`, `class` or `import` keyword. Statements
   * without one cannot hold a definition or an import, so the walk skips them: most function
   * bodies are skipped this way.
   */
  private mayHoldStatements(): boolean {
    const start = this.cursor.startIndex;
    const keywords = this.keywords;
    let lo = 0;
    let hi = keywords.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keywords[mid] ?? 0) < start) lo = mid + 1;
      else hi = mid;
    }
    return lo < keywords.length && (keywords[lo] ?? 0) < this.cursor.endIndex;
  }

  private slice(): string {
    return this.text.slice(this.cursor.startIndex, this.cursor.endIndex);
  }

  /** Visits the statements under the cursor's node; the cursor ends where it started. */
  children(scope: number): void {
    const c = this.cursor;
    if (!c.gotoFirstChild()) return;
    do this.statement(scope);
    while (c.gotoNextSibling());
    c.gotoParent();
  }

  private statement(scope: number): void {
    const c = this.cursor;
    const s = this.syntax;
    const type = c.nodeTypeId;
    if (type === s.functionDefinition || type === s.classDefinition) {
      this.definition(scope, c.startPosition.row);
    } else if (type === s.decoratedDefinition) {
      const row = c.startPosition.row;
      if (!c.gotoFirstChild()) return;
      do {
        const inner = c.nodeTypeId;
        if (inner === s.functionDefinition || inner === s.classDefinition) this.definition(scope, row);
      } while (c.gotoNextSibling());
      c.gotoParent();
    } else if (s.imports.has(type)) {
      for (const raw of parseImportStatement(this.slice())) this.imports.push(raw);
    } else if (s.containers.has(type) && this.mayHoldStatements()) {
      this.children(scope);
    }
  }

  /**
   * Reads the definition under the cursor; `startRow` is where its decorators start. The header
   * (name, parameters, bases) and the docstring are read from the text between the keyword and
   * the body, which costs one cursor move instead of one per child node.
   */
  private definition(scope: number, startRow: number): void {
    const c = this.cursor;
    const s = this.syntax;
    const isClass = c.nodeTypeId === s.classDefinition;
    const parent = scope >= 0 ? this.definitions[scope] : undefined;
    const headStart = c.startIndex;
    const draft: Draft = {
      kind: isClass ? 'class' : parent?.kind === 'class' ? 'method' : 'function',
      name: '',
      qualName: '',
      parent: scope,
      span: { start: startRow + 1, end: startRow + 1 },
      headStart,
      end: c.endIndex,
      signature: '',
      docstring: undefined,
      docText: '',
      bases: [],
      calls: new Set(),
      identifiers: new Set(),
    };
    const index = this.definitions.length;
    this.definitions.push(draft);
    // The body is the definition's last child but for a trailing comment.
    if (c.gotoLastChild()) {
      while (!s.blocks.has(c.nodeTypeId) && c.gotoPreviousSibling());
      if (s.blocks.has(c.nodeTypeId)) {
        this.header(draft, isClass, parent, this.text.slice(headStart, c.startIndex));
        this.docstring(draft, c.startIndex);
        if (this.mayHoldStatements()) this.children(index);
      }
      c.gotoParent();
    }
    if (draft.name === '') this.header(draft, isClass, parent, this.text.slice(headStart, c.endIndex));
    this.closeAt(draft);
  }

  private header(draft: Draft, isClass: boolean, parent: Draft | undefined, text: string): void {
    const header = parseHeader(text);
    // Only a header broken beyond recovery has no name; the definition still needs one.
    draft.name = header?.name || '_';
    draft.qualName = parent === undefined ? draft.name : `${parent.qualName}.${draft.name}`;
    const parentheses = header?.parentheses ?? '';
    if (isClass) {
      draft.signature = oneLine(`class ${draft.name}${parentheses}`);
      draft.bases = parentheses === '' ? [] : baseNames(parentheses);
    } else {
      const returns = header?.returnType ?? '';
      draft.signature = oneLine(
        `${header?.isAsync === true ? 'async ' : ''}def ${draft.name}${parentheses === '' ? '()' : parentheses}${returns === '' ? '' : ` -> ${returns}`}`,
      );
    }
  }

  /** The docstring of a body (or the module) starting at `offset`, when it has one. */
  docstring(target: { docstring: string | undefined; docText: string }, offset: number): void {
    const literal = docstringLiteralAt(this.text, offset);
    const doc = literal === undefined ? undefined : docstringText(literal);
    if (doc === undefined) return;
    target.docstring = firstLine(doc);
    target.docText = doc.slice(0, docTextCap);
  }

  /**
   * Ends the definition at its last token that is not a comment: tree-sitter keeps comments that
   * trail a block inside it, Python's own `end_lineno` does not.
   */
  private closeAt(draft: Draft): void {
    const c = this.cursor;
    const end = c.endIndex;
    // Only a definition whose last line is a comment needs the walk down its last children.
    const lineStart = this.text.lastIndexOf('\n', end - 1) + 1;
    if (!this.text.slice(lineStart, end).trimStart().startsWith('#')) {
      draft.end = end;
      draft.span.end = c.endPosition.row + 1;
      return;
    }
    let depth = 0;
    while (c.gotoLastChild()) {
      depth += 1;
      while (c.nodeTypeId === this.syntax.comment && c.gotoPreviousSibling());
    }
    draft.end = c.endIndex;
    draft.span.end = c.endPosition.row + 1;
    for (; depth > 0; depth -= 1) c.gotoParent();
  }
}

/**
 * Where the words `def`, `class` and `import` occur, ascending. Occurrences inside strings and
 * comments are included: they only make the walk look into a statement it could have skipped,
 * while a keyword that is missed would lose a definition, and none can be.
 */
function keywordOffsets(text: string): number[] {
  const out: number[] = [];
  const pattern = /\b(?:def|class|import)\b/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) out.push(match.index);
  return out;
}

/**
 * Gives each identifier and call of the text to the innermost definition around it, in one scan.
 * Decorators lie before a definition's `def`, so their calls belong to the enclosing scope.
 */
function attachTokens(text: string, definitions: readonly Draft[]): void {
  const open: Draft[] = [];
  let next = 0;
  const innermost = (offset: number): Draft | undefined => {
    for (let d = definitions[next]; d !== undefined && d.headStart <= offset; d = definitions[++next]) {
      while (open.length > 0 && (open[open.length - 1]?.end ?? 0) <= d.headStart) open.pop();
      open.push(d);
    }
    while (open.length > 0 && (open[open.length - 1]?.end ?? 0) <= offset) open.pop();
    return open[open.length - 1];
  };
  scanCode(text, {
    identifier(start, end) {
      const owner = innermost(start);
      if (owner === undefined || owner.identifiers.size >= identifierCap) return;
      const name = text.slice(start, end);
      if (!pythonKeywords.has(name)) owner.identifiers.add(name);
    },
    call(offset, chain) {
      const owner = innermost(offset);
      if (owner === undefined) return;
      const dot = chain.indexOf('.');
      const head = dot < 0 ? chain : chain.slice(0, dot);
      if (head === 'self' || head === 'cls' || !pythonKeywords.has(head)) owner.calls.add(chain);
    },
  });
}

/** Reads one file's facts from its tree. */
export function extractFile(path: string, text: string, tree: Tree, syntax: PythonSyntax): FileParse {
  const cursor = tree.walk();
  const walker = new Walker(text, cursor, syntax, keywordOffsets(text));
  const module = { docstring: undefined as string | undefined, docText: '' };
  try {
    walker.docstring(module, 0);
    walker.children(-1);
  } finally {
    cursor.delete();
  }
  const drafts = walker.definitions;
  attachTokens(text, drafts);
  const definitions: Definition[] = drafts.map((d) => ({ ...d, calls: [...d.calls], identifiers: [...d.identifiers] }));
  return { path, lineCount: countLines(text), docstring: module.docstring, docText: module.docText, definitions, imports: walker.imports };
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines += 1;
  return text.endsWith('\n') ? lines - 1 : lines;
}
