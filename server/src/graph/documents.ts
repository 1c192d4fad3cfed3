/**
 * The search document of each node: for a definition, its name (weighted three times, split into
 * sub-words and whole), the names of the definitions around it, its docstring, the identifiers its
 * body uses and its file's path; for a file, its path (twice), its module docstring and the names
 * it defines at the top level. Documents are built as term numbers, each identifier's numbers
 * worked out once per graph, because a repository repeats its identifiers many times.
 */
import type { Vocabulary } from './bm25.js';
import type { FileRecord } from './graphIndex.js';
import { Terms } from './tokens.js';

const nameWeight = 3;

function pathText(path: string): string {
  return path.replace(/\.py$/, '').replace(/[/.-]/g, ' ');
}

export class DocumentBuilder {
  private readonly terms = new Terms();
  private readonly identifierTerms = new Map<string, readonly number[]>();

  constructor(private readonly vocabulary: Vocabulary) {}

  private identifier(name: string): readonly number[] {
    let ids = this.identifierTerms.get(name);
    if (ids === undefined) {
      ids = this.terms.ofIdentifier(name).map((t) => this.vocabulary.id(t));
      this.identifierTerms.set(name, ids);
    }
    return ids;
  }

  private text(text: string, out: number[]): void {
    for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*|[0-9]+/g) ?? []) for (const t of this.identifier(word)) out.push(t);
  }

  /** Calls `set(id, terms)` for the file's node and each of its definitions. */
  index(record: FileRecord, set: (id: string, terms: readonly number[]) => void): void {
    const { parse } = record;
    const pathTerms: number[] = [];
    this.text(pathText(parse.path), pathTerms);
    const fileTerms = [...pathTerms, ...pathTerms];
    this.text(parse.docText, fileTerms);
    const defs = parse.definitions;
    defs.forEach((d, i) => {
      const own = this.identifier(d.name);
      if (d.parent === -1) for (const t of own) fileTerms.push(t);
      const node = record.nodes[i];
      if (node === undefined) return;
      const doc: number[] = [];
      for (let w = 0; w < nameWeight; w += 1) for (const t of own) doc.push(t);
      for (let p = d.parent; p >= 0; p = defs[p]?.parent ?? -1) for (const t of this.identifier(defs[p]?.name ?? '')) doc.push(t);
      if (d.docText !== '') this.text(d.docText, doc);
      for (const identifier of d.identifiers) for (const t of this.identifier(identifier)) doc.push(t);
      for (const t of pathTerms) doc.push(t);
      set(node.id, doc);
    });
    set(record.file.id, fileTerms);
  }
}
