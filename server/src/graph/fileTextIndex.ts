/**
 * BM25 over each file's whole text (code, comments and strings, identifiers split into sub-words),
 * the retriever that finds a file by words its definitions' documents leave out: an error message
 * in a string, a setting's name, a comment. Built the first time an issue is ranked, not with the
 * graph, so graphs that never rank an issue (a search in the editor) do not pay for it, and kept
 * until a file changes.
 */
import { Bm25 } from './bm25.js';
import { Terms } from './tokens.js';

export class FileTextIndex {
  private readonly bm25 = new Bm25();
  private readonly terms = new Terms();

  constructor(files: Iterable<{ path: string; text: string }>) {
    const vocabulary = this.bm25.vocabulary;
    const numbers = new Map<string, readonly number[]>();
    for (const { path, text } of files) {
      const doc: number[] = [];
      for (const word of `${path.replace(/\.py$/, '').replace(/[/.-]/g, ' ')}\n${text}`.match(/[A-Za-z_][A-Za-z0-9_]*|[0-9]+/g) ?? []) {
        let ids = numbers.get(word);
        if (ids === undefined) {
          ids = this.terms.ofIdentifier(word).map((t) => vocabulary.id(t));
          numbers.set(word, ids);
        }
        for (const id of ids) doc.push(id);
      }
      this.bm25.set(path, doc);
    }
  }

  /** Paths of the best files for a text, best first. */
  search(query: string, limit: number): string[] {
    return this.bm25.search(this.terms.ofText(query), limit).map((hit) => hit.id);
  }
}
