/**
 * The semantic retriever of `rank` (rank.ts): every file and definition of a graph outside the
 * tests, embedded once by its short description (path, qualified name, signature, first docstring
 * line) and looked up by the cosine to the embedding.
 *
 * Descriptions are short on purpose: the model reads at most 128 tokens, a description fits in
 * about 30, and short texts embed four times as fast (on two cores about 200 a second, so a graph
 * of 15,000 definitions takes about a minute the first time). Vectors are cached on disk by their
 * text (`embeddingStore.ts`), in chunks, so a second graph of the same code, or a run cut short and
 * started again, embeds only what is new.
 */
import type { GraphNode } from '../protocol/graph.js';
import type { TextEmbedder } from './embedder.js';
import { embedCached, type EmbeddingStore } from './embeddingStore.js';
import type { SemanticIndex } from './rank.js';

/** Texts per store write: progress is kept at least this often. */
const chunk = 512;

export interface SemanticIndexOptions {
  /** Called after each chunk with the nodes embedded (or found cached) so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** The text that stands for a node: path words, qualified name (from the id), signature, docstring. */
export function describeNode(node: GraphNode): string {
  const parts = [node.path.replace(/\.py$/, '').replace(/[/_]/g, ' ')];
  if (node.kind !== 'file')
    parts.push(
      node.id
        .replace(/^\w+:[^#]*#/, '')
        .replace(/@\d+$/, '')
        .replace(/_/g, ' '),
    );
  if (node.signature !== undefined) parts.push(node.signature);
  if (node.docstring !== undefined) parts.push(node.docstring);
  return parts.join(' · ');
}

export class NodeEmbeddings implements SemanticIndex {
  private constructor(
    private readonly embedder: TextEmbedder,
    private readonly ids: readonly string[],
    /** One row of `dimensions` floats per id, L2-normalised. */
    private readonly matrix: Float32Array,
  ) {}

  get size(): number {
    return this.ids.length;
  }

  static async build(
    graph: { nodes(): readonly GraphNode[] },
    embedder: TextEmbedder,
    store: EmbeddingStore,
    options: SemanticIndexOptions = {},
  ): Promise<NodeEmbeddings> {
    const nodes = graph.nodes().filter((n) => n.test !== true);
    const dims = embedder.dimensions;
    const matrix = new Float32Array(nodes.length * dims);
    for (let start = 0; start < nodes.length; start += chunk) {
      const slice = nodes.slice(start, start + chunk);
      const vectors = await embedCached(
        store,
        embedder,
        slice.map((n) => ({ text: describeNode(n) })),
      );
      vectors.forEach((v, i) => matrix.set(v, (start + i) * dims));
      options.onProgress?.(Math.min(nodes.length, start + chunk), nodes.length);
    }
    return new NodeEmbeddings(
      embedder,
      nodes.map((n) => n.id),
      matrix,
    );
  }

  async nearest(query: string, limit: number): Promise<Array<{ id: string; score: number }>> {
    const [q] = await this.embedder.embed([query]);
    if (q === undefined) return [];
    const dims = q.length;
    const scores = new Float32Array(this.ids.length);
    for (let row = 0; row < this.ids.length; row++) {
      let dot = 0;
      const offset = row * dims;
      for (let d = 0; d < dims; d++) dot += (q[d] ?? 0) * (this.matrix[offset + d] ?? 0);
      scores[row] = dot;
    }
    const order = [...scores.keys()].sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0)).slice(0, limit);
    return order.map((row) => ({ id: this.ids[row] ?? '', score: scores[row] ?? 0 }));
  }
}
