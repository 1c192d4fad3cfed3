/**
 * The benchmark's baselines, plain Okapi BM25 (k1 = 1.2, b = 0.75) written here rather than taken
 * from the graph, so the anchor shares no code with what it measures:
 *
 * - over whole files: one document per Python file of the release, tests and all;
 * - over functions: one document per function, method and class of the graph (its source lines and
 *   its path), which ranks definitions, and files by the first appearance of each.
 *
 * Words are `[A-Za-z0-9_]+` lower-cased, each followed by its snake_case and CamelCase sub-words;
 * the query is the whole problem statement in the same words, each distinct word counted once.
 */
import type { CodeGraph, SourceFile } from '../server/src/graph/index.js';
import { qualifiedKey } from './localisationGold.js';

const k1 = 1.2;
const b = 0.75;
const wordPattern = /[A-Za-z0-9_]+/g;
const subWordPattern = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/** A repository repeats its identifiers many times; splitting each once saves most of the work. */
const splitCache = new Map<string, readonly string[]>();

function wordTerms(word: string): readonly string[] {
  let terms = splitCache.get(word);
  if (terms === undefined) {
    const whole = word.toLowerCase();
    const parts = word.split('_').flatMap((part) => part.match(subWordPattern) ?? []);
    terms = parts.length > 1 ? [whole, ...parts.map((p) => p.toLowerCase())] : [whole];
    if (splitCache.size < 1_000_000) splitCache.set(word, terms);
  }
  return terms;
}

/** `parseHTTPResponse(raw_bytes)` → parsehttpresponse, parse, http, response, raw_bytes, raw, bytes. */
export function bm25Tokens(text: string): string[] {
  const out: string[] = [];
  for (const word of text.match(wordPattern) ?? []) for (const term of wordTerms(word)) out.push(term);
  return out;
}

/** BM25 over documents numbered in the order given. */
export class PlainBm25 {
  private readonly termIds = new Map<string, number>();
  /** Per term: document, frequency, document, frequency, … */
  private readonly postings: number[][] = [];
  private readonly lengths: number[] = [];
  private totalLength = 0;

  add(tokens: readonly string[]): void {
    const doc = this.lengths.length;
    const counts = new Map<number, number>();
    for (const token of tokens) {
      let id = this.termIds.get(token);
      if (id === undefined) {
        id = this.postings.length;
        this.termIds.set(token, id);
        this.postings.push([]);
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, tf] of counts) this.postings[id]?.push(doc, tf);
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
  }

  /** Document numbers, best first (ties to the earlier document), at most `limit`. */
  search(query: readonly string[], limit: number): number[] {
    const n = this.lengths.length;
    if (n === 0) return [];
    const average = this.totalLength / n;
    const scores = new Map<number, number>();
    for (const term of new Set(query)) {
      const list = this.postings[this.termIds.get(term) ?? -1];
      if (list === undefined) continue;
      const df = list.length / 2;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i] ?? 0;
        const tf = list[i + 1] ?? 0;
        const norm = 1 - b + (b * (this.lengths[doc] ?? 0)) / average;
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / (tf + k1 * norm));
      }
    }
    return [...scores.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, limit)
      .map(([doc]) => doc);
  }
}

/** A ranking of one query: file paths and definition keys (`path#Qualified.name`), best first. */
export interface Ranking {
  readonly files: readonly string[];
  readonly definitions: readonly string[];
}

export interface Ranker {
  rank(query: string, limit: number): Ranking;
}

/** BM25 with one document per file. */
export function fileBm25(files: readonly SourceFile[]): Ranker {
  const index = new PlainBm25();
  for (const file of files) index.add(bm25Tokens(file.text));
  return {
    rank: (query, limit) => ({ files: index.search(bm25Tokens(query), limit).map((doc) => files[doc]?.path ?? ''), definitions: [] }),
  };
}

/** BM25 with one document per definition of the graph; files ranked by their first definition. */
export function functionBm25(graph: CodeGraph): Ranker {
  const index = new PlainBm25();
  const keys: string[] = [];
  const lines = new Map<string, readonly string[]>();
  for (const node of graph.nodes()) {
    const key = qualifiedKey(node.id);
    if (key === undefined) continue;
    let fileLines = lines.get(node.path);
    if (fileLines === undefined) {
      fileLines = (graph.fileText(node.path) ?? '').split('\n');
      lines.set(node.path, fileLines);
    }
    index.add(bm25Tokens(`${node.path}\n${fileLines.slice(node.span.start - 1, node.span.end).join('\n')}`));
    keys.push(key);
  }
  return {
    rank(query, limit) {
      // Repeated definitions (`@2`) share a key, and a file's definitions share its path, so more hits than `limit` are read.
      const hits = index.search(bm25Tokens(query), limit * 50).map((doc) => keys[doc] ?? '');
      const definitions = [...new Set(hits)].slice(0, limit);
      const files = [...new Set(hits.map((key) => key.slice(0, key.indexOf('#'))))].slice(0, limit);
      return { files, definitions };
    },
  };
}
