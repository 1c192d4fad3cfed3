/**
 * Okapi BM25 (k1 = 1.2, b = 0.75) over one document per node. Terms and documents are numbered
 * (documents arrive as term numbers from the shared `Vocabulary`) and postings are flat number
 * arrays, so building the index for a repository is a few pushes per term rather than a map per
 * posting. Removing a document marks it dead (its term frequencies are
 * subtracted at once, so scores stay exact); the postings are compacted when the dead outnumber
 * the living.
 */

const k1 = 1.2;
const b = 0.75;

export interface Hit {
  readonly id: string;
  readonly score: number;
}

/** Term ↔ number, shared by the documents' builder and the index. */
export class Vocabulary {
  private readonly ids = new Map<string, number>();

  get size(): number {
    return this.ids.size;
  }

  /** The term's number, assigned on first sight. */
  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(term, id);
    }
    return id;
  }

  /** The term's number, or undefined for a term no document has used. */
  lookup(term: string): number | undefined {
    return this.ids.get(term);
  }
}

export class Bm25 {
  readonly vocabulary = new Vocabulary();
  /** Per term: document number, term frequency, document number, term frequency, … */
  private postings: number[][] = [];
  /** Per term: how many living documents hold it. */
  private documentFrequency: number[] = [];
  private docIds: string[] = [];
  private docLengths: number[] = [];
  /** Per document: its distinct term numbers, for removal. */
  private docTerms: Array<readonly number[] | undefined> = [];
  private readonly docNumbers = new Map<string, number>();
  private totalLength = 0;
  private dead = 0;

  get size(): number {
    return this.docNumbers.size;
  }

  /** Per term, while one document is being added: its frequency there. */
  private scratch = new Int32Array(1024);

  /** Sets the document of a node (replacing an earlier one), as term numbers from `vocabulary`. */
  set(id: string, terms: readonly number[]): void {
    this.remove(id);
    const doc = this.docIds.length;
    const distinct: number[] = [];
    const vocabularySize = this.vocabulary.size;
    while (this.postings.length < vocabularySize) {
      this.postings.push([]);
      this.documentFrequency.push(0);
    }
    if (this.scratch.length < vocabularySize) {
      const grown = new Int32Array(Math.max(vocabularySize, this.scratch.length * 2));
      grown.set(this.scratch);
      this.scratch = grown;
    }
    const scratch = this.scratch;
    for (const t of terms) {
      if (scratch[t] === 0) distinct.push(t);
      scratch[t] = (scratch[t] ?? 0) + 1;
    }
    for (const t of distinct) {
      this.postings[t]?.push(doc, scratch[t] ?? 0);
      this.documentFrequency[t] = (this.documentFrequency[t] ?? 0) + 1;
      scratch[t] = 0;
    }
    this.docIds.push(id);
    this.docLengths.push(terms.length);
    this.docTerms.push(distinct);
    this.docNumbers.set(id, doc);
    this.totalLength += terms.length;
  }

  remove(id: string): void {
    const doc = this.docNumbers.get(id);
    if (doc === undefined) return;
    this.docNumbers.delete(id);
    for (const t of this.docTerms[doc] ?? []) this.documentFrequency[t] = (this.documentFrequency[t] ?? 1) - 1;
    this.docTerms[doc] = undefined;
    this.totalLength -= this.docLengths[doc] ?? 0;
    this.dead += 1;
    if (this.dead > 64 && this.dead > this.docNumbers.size) this.compact();
  }

  /** The best documents for the query terms, best first; ties go to the smaller id. */
  search(terms: readonly string[], limit: number): Hit[] {
    const live = this.docNumbers.size;
    if (live === 0 || limit <= 0) return [];
    const averageLength = this.totalLength / live;
    const scores = new Map<number, number>();
    for (const term of new Set(terms)) {
      const t = this.vocabulary.lookup(term);
      if (t === undefined) continue;
      const df = this.documentFrequency[t] ?? 0;
      if (df === 0) continue;
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
      const list = this.postings[t] ?? [];
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i] ?? 0;
        if (this.docTerms[doc] === undefined) continue;
        const tf = list[i + 1] ?? 0;
        const norm = 1 - b + (b * (this.docLengths[doc] ?? 0)) / averageLength;
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / (tf + k1 * norm));
      }
    }
    const hits: Hit[] = [];
    for (const [doc, score] of scores) hits.push({ id: this.docIds[doc] ?? '', score });
    hits.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    return hits.slice(0, limit);
  }

  /** Renumbers the living documents and drops the dead ones' postings. */
  private compact(): void {
    const renumber = new Map<number, number>();
    const docIds: string[] = [];
    const docLengths: number[] = [];
    const docTerms: Array<readonly number[] | undefined> = [];
    this.docIds.forEach((id, doc) => {
      if (this.docTerms[doc] === undefined) return;
      renumber.set(doc, docIds.length);
      this.docNumbers.set(id, docIds.length);
      docIds.push(id);
      docLengths.push(this.docLengths[doc] ?? 0);
      docTerms.push(this.docTerms[doc]);
    });
    this.postings = this.postings.map((list) => {
      const kept: number[] = [];
      for (let i = 0; i < list.length; i += 2) {
        const doc = renumber.get(list[i] ?? -1);
        if (doc !== undefined) kept.push(doc, list[i + 1] ?? 0);
      }
      return kept;
    });
    this.docIds = docIds;
    this.docLengths = docLengths;
    this.docTerms = docTerms;
    this.dead = 0;
  }
}
