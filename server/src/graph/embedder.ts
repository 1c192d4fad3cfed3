/**
 * Sentence embeddings for the code graph's second retriever: all-MiniLM-L6-v2 with int8 weights,
 * run by `onnxruntime-node` on the CPU, mean-pooled over the real tokens and L2-normalised, as
 * sentence-transformers does for this model. Vectors are 384 floats, so the dot product of two is
 * their cosine.
 *
 * The model is optional. `loadEmbedder` answers with the reason it cannot run (the runtime is not
 * installed, the model files are missing or differ from the pinned ones) rather than throwing, and
 * callers then rank with BM25 alone. The native runtime is imported only here, on first load, so
 * reading the graph module never loads the add-on.
 *
 * Where the model files are is explained in `resources/embedding-model/README.md`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { errorMessage } from '../util/errors.js';
import { defaultMaxTokens, parseTokenizerJson, type WordPieceTokenizer } from './wordPiece.js';

export interface TextEmbedder {
  /** Names the vector space: vectors from two ids are never compared or cached together. */
  readonly modelId: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/**
 * The one model we run, pinned by its file's hash: the embedding cache keys vectors by `id`, so a
 * different file under the same id would mix two vector spaces.
 */
export const embeddingModel = {
  id: 'all-MiniLM-L6-v2-onnx-int8',
  dimensions: 384,
  modelFile: 'model.onnx',
  tokenizerFile: 'tokenizer.json',
  sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
} as const;

/** Environment variable naming the folder with `model.onnx` and `tokenizer.json`. */
export const modelDirVariable = 'GP_EMBEDDING_MODEL_DIR';

export interface EmbedderOptions {
  /** The folder holding the model files; when set, the only place looked at. */
  modelDir?: string;
  /** Tokens per text, `[CLS]` and `[SEP]` included (at most 512, the model's positions). */
  maxTokens?: number;
  /** Texts per run of the model. */
  batchSize?: number;
  /** Threads for one run of the model. */
  threads?: number;
  /** Loads the runtime; tests replace it to see the fallback. */
  importRuntime?: () => Promise<typeof Ort>;
}

export type LoadedEmbedder = { embedder: TextEmbedder } | { unavailable: string };

/**
 * 16 texts per run: measured on two cores, 16 embedded short texts 6% and 128-token texts 15%
 * faster than 32, and 64 was slower again. Each run also blocks the event loop (the binding runs
 * the model on the calling thread), about 75 ms for 16 short texts and 360 ms for 16 long ones.
 */
const defaultBatchSize = 16;
const positions = 512;

/** The folders looked at for the model files, in order. */
export function modelSearchPath(options: EmbedderOptions = {}, env: NodeJS.ProcessEnv = process.env): string[] {
  if (options.modelDir !== undefined) return [options.modelDir];
  const fromEnv = env[modelDirVariable];
  if (fromEnv !== undefined && fromEnv !== '') return [fromEnv];
  const shipped = shippedModelDir(__dirname);
  return [
    ...(shipped === undefined ? [] : [shipped]),
    // Where the setup puts it for a developer or CI machine.
    join(homedir(), '.cache', 'graph-planner', 'models', embeddingModel.id),
  ];
}

/**
 * `resources/embedding-model/` in the nearest folder above `from` that has one: the extension's
 * root for the bundle in `dist/` (the .vsix carries `resources/`), the repository for sources.
 */
function shippedModelDir(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'resources', 'embedding-model');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The embedder, or why there is none; never throws. */
export async function loadEmbedder(options: EmbedderOptions = {}): Promise<LoadedEmbedder> {
  const maxTokens = options.maxTokens ?? defaultMaxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 2 || maxTokens > positions)
    return { unavailable: `maxTokens must be an integer from 2 to ${positions}, got ${maxTokens}` };
  const batchSize = options.batchSize ?? defaultBatchSize;
  if (!Number.isInteger(batchSize) || batchSize < 1) return { unavailable: `batchSize must be a positive integer, got ${batchSize}` };
  const searched = modelSearchPath(options);
  const dir = searched.find((candidate) => existsSync(join(candidate, embeddingModel.modelFile)));
  if (dir === undefined) {
    return {
      unavailable: `the embedding model is not installed: no ${embeddingModel.modelFile} in ${searched.join(' or ')} (see resources/embedding-model/README.md)`,
    };
  }
  let ort: typeof Ort;
  try {
    ort = await (options.importRuntime ?? importOnnxRuntime)();
  } catch (error) {
    return { unavailable: runtimeFailure(error) };
  }
  const files = await readModelFiles(dir);
  if ('unavailable' in files) return files;
  // One core is left to the rest of the process and the machine: on two cores beside one other
  // busy process, two threads embedded at half the speed of one (the pool's threads spin).
  const threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  try {
    const session = await ort.InferenceSession.create(files.model, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      // Warnings would go to the language server's stderr, once per process, about nothing we can act on.
      logSeverityLevel: 3,
    });
    const embedder = new OnnxEmbedder(ort, session, files.tokenizer, maxTokens, batchSize);
    const check = await embedder.selfCheck();
    return check === undefined ? { embedder } : { unavailable: `${join(dir, embeddingModel.modelFile)}: ${check}` };
  } catch (error) {
    return { unavailable: `onnxruntime-node could not run ${join(dir, embeddingModel.modelFile)}: ${errorMessage(error)}` };
  }
}

/**
 * `require` rather than `import()`: the package is CommonJS, and a dynamic import fails when this
 * module is itself loaded from an ES module through tsx (it then has no file URL to resolve from).
 */
function importOnnxRuntime(): Promise<typeof Ort> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Loaded on first use only, see above.
  return Promise.resolve(require('onnxruntime-node') as typeof Ort);
}

function runtimeFailure(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return 'onnxruntime-node is not installed (npm install onnxruntime-node)';
  return `onnxruntime-node could not be loaded: ${errorMessage(error)}`;
}

async function readModelFiles(dir: string): Promise<{ model: Uint8Array; tokenizer: WordPieceTokenizer } | { unavailable: string }> {
  const modelPath = join(dir, embeddingModel.modelFile);
  const tokenizerPath = join(dir, embeddingModel.tokenizerFile);
  let model: Buffer;
  let tokenizerText: string;
  try {
    model = await readFile(modelPath);
  } catch (error) {
    return { unavailable: `cannot read ${modelPath}: ${errorMessage(error)}` };
  }
  try {
    tokenizerText = await readFile(tokenizerPath, 'utf8');
  } catch (error) {
    return { unavailable: `model file ${tokenizerPath} missing or unreadable: ${errorMessage(error)}` };
  }
  const sha256 = createHash('sha256').update(model).digest('hex');
  if (sha256 !== embeddingModel.sha256)
    return { unavailable: `${modelPath} is not the pinned ${embeddingModel.id} (sha256 ${sha256}, expected ${embeddingModel.sha256})` };
  const parsed = parseTokenizerJson(tokenizerText);
  if ('error' in parsed) return { unavailable: `${tokenizerPath}: ${parsed.error}` };
  return { model, tokenizer: parsed.tokenizer };
}

class OnnxEmbedder implements TextEmbedder {
  readonly modelId = embeddingModel.id;
  readonly dimensions = embeddingModel.dimensions;
  /** One run at a time: the session's threads already use the cores, and runs block the loop. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly maxTokens: number,
    private readonly batchSize: number,
  ) {}

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    const result = this.queue.then(() => this.embedNow(texts));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Why the model's output is not what this class expects, or undefined when it is. */
  async selfCheck(): Promise<string | undefined> {
    const output = this.session.outputNames[0];
    if (output === undefined) return 'the model has no output';
    for (const name of ['input_ids', 'attention_mask']) if (!this.session.inputNames.includes(name)) return `the model has no ${name} input`;
    const [vector] = await this.embedNow(['self check']);
    return vector?.length === this.dimensions ? undefined : `the model's vectors have ${vector?.length ?? 0} dimensions, not ${this.dimensions}`;
  }

  /**
   * Texts are run in order of length, so that each batch pads to a length close to its own and
   * padding (which costs as much as real tokens) stays small.
   */
  private async embedNow(texts: readonly string[]): Promise<Float32Array[]> {
    const encoded = texts.map((text) => this.tokenizer.encode(text, this.maxTokens));
    const order = encoded.map((_, i) => i).sort((a, b) => (encoded[a]?.length ?? 0) - (encoded[b]?.length ?? 0));
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const rows = order.slice(start, start + this.batchSize);
      const pooled = await this.run(rows.map((row) => encoded[row] ?? []));
      rows.forEach((row, i) => {
        const vector = pooled[i];
        if (vector !== undefined) vectors[row] = vector;
      });
    }
    return vectors;
  }

  private async run(encodings: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const batch = this.tokenizer.batch(encodings);
    const shape = [batch.rows, batch.width];
    const feeds: Record<string, Ort.Tensor> = {
      input_ids: new this.ort.Tensor('int64', batch.inputIds, shape),
      attention_mask: new this.ort.Tensor('int64', batch.attentionMask, shape),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds['token_type_ids'] = new this.ort.Tensor('int64', batch.tokenTypeIds, shape);
    const outputName = this.session.outputNames[0] ?? 'last_hidden_state';
    const results = await this.session.run(feeds);
    const hidden = results[outputName];
    if (hidden === undefined || !(hidden.data instanceof Float32Array)) throw new Error(`the model returned no float ${outputName}`);
    const dims = hidden.dims.at(-1) ?? 0;
    return meanPool(hidden.data, batch.attentionMask, batch.rows, batch.width, dims);
  }
}

/**
 * The mean of each row's hidden states over its real tokens, scaled to length 1 (sentence-
 * transformers' Pooling(mean) and Normalize modules). Sums are kept in doubles.
 */
export function meanPool(hidden: Float32Array, mask: BigInt64Array, rows: number, width: number, dims: number): Float32Array[] {
  const out: Float32Array[] = [];
  const sum = new Float64Array(dims);
  for (let row = 0; row < rows; row++) {
    sum.fill(0);
    let count = 0;
    for (let t = 0; t < width; t++) {
      if (mask[row * width + t] === 0n) continue;
      count++;
      const base = (row * width + t) * dims;
      for (let d = 0; d < dims; d++) sum[d] = (sum[d] ?? 0) + (hidden[base + d] ?? 0);
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const mean = (sum[d] ?? 0) / Math.max(count, 1);
      sum[d] = mean;
      norm += mean * mean;
    }
    const scale = 1 / Math.max(Math.sqrt(norm), 1e-12);
    const vector = new Float32Array(dims);
    for (let d = 0; d < dims; d++) vector[d] = (sum[d] ?? 0) * scale;
    out.push(vector);
  }
  return out;
}
