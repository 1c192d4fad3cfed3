/**
 * The semantic retriever the environment fuses into an issue's hints (`env.semantic_search`): the
 * embedding model loaded once per process, one vector store on disk, and each graph's node
 * embeddings built once (from the store when the code was seen before). When the model or its
 * runtime is missing, or embedding fails, the answer is undefined and the hints come from anchors
 * and BM25 alone; the observation's `hint_retrievers` says which ran, and the reason is logged once.
 */
import type { CodeGraph, SemanticIndex, TextEmbedder } from '../graph/index.js';
import { EmbeddingStore, loadEmbedder, NodeEmbeddings } from '../graph/index.js';
import { errorMessage } from '../util/errors.js';

export type SemanticProvider = (graph: CodeGraph) => Promise<SemanticIndex | undefined>;

interface Loaded {
  embedder: TextEmbedder;
  store: EmbeddingStore;
}

let loading: Promise<Loaded | undefined> | undefined;
const built = new WeakMap<CodeGraph, Promise<SemanticIndex | undefined>>();
/**
 * Builds run one at a time: concurrent episodes on the same new code (a training batch) would
 * otherwise each embed all of it before any had stored it; one after another, the first embeds
 * and the rest read its vectors from the store.
 */
let queue: Promise<unknown> = Promise.resolve();

/** Runs `work` after every build queued before it, whatever became of them. */
export function afterQueued<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => undefined);
  return run;
}

function load(log: (line: string) => void): Promise<Loaded | undefined> {
  loading ??= (async () => {
    const loaded = await loadEmbedder();
    if (!('embedder' in loaded)) {
      log(`semantic search is off: ${loaded.unavailable} (hints come from anchors and BM25; scripts/setup-embedding-model.sh installs the model)`);
      return undefined;
    }
    const store = await EmbeddingStore.open(loaded.embedder.modelId, loaded.embedder.dimensions);
    return { embedder: loaded.embedder, store };
  })();
  return loading;
}

/** The provider for `env.semantic_search`; undefined for `off`. */
export function semanticProvider(mode: 'auto' | 'off', log: (line: string) => void = (line) => console.error(line)): SemanticProvider | undefined {
  if (mode === 'off') return undefined;
  return (graph) => {
    let index = built.get(graph);
    if (index === undefined) {
      index = (async () => {
        const loaded = await load(log);
        if (loaded === undefined) return undefined;
        try {
          return await afterQueued(() => NodeEmbeddings.build(graph, loaded.embedder, loaded.store));
        } catch (error) {
          log(`semantic search failed for this graph, hints come from anchors and BM25: ${errorMessage(error)}`);
          return undefined;
        }
      })();
      built.set(graph, index);
    }
    return index;
  };
}
