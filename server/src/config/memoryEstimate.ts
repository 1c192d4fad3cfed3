/**
 * A GPU memory estimate for serving a decoder-only transformer, computed from the model's own
 * `config.json` (ARCHITECTURE.md §4.6). It counts parameters from the layer shapes, multiplies by the
 * dtype's size, splits by tensor parallelism and adds a KV cache and a runtime overhead.
 *
 * What it assumes, so a reader can judge the number:
 * - The MLP is gated (SwiGLU: gate, up and down projections), as in the Llama and Qwen families
 *   the planner and CGM come from. Biases and per-head norms are left out; they are well under
 *   0.1% of the parameters.
 * - Weights, embeddings included, split evenly across the tensor-parallel GPUs (vLLM shards the
 *   vocabulary too). Key/value heads split too, but a GPU always holds at least one.
 * - The KV cache holds one full context (prompt + reply) per concurrent sequence.
 * - Runtime overhead is 1 GiB (CUDA context, NCCL buffers) plus 10% of the weights (activations,
 *   allocator fragmentation), which matches what vLLM reports for 7B–70B models within a few GiB.
 * It estimates serving, not training: FSDP's gradients and optimiser states are not counted.
 */
import { z } from 'zod';
import { memorySizePattern, type ExperimentConfig } from './schema.js';

export const GIB = 1024 ** 3;
/** What the estimate compares against when backends.max_gpu_memory is null. */
export const DEFAULT_GPU_MEMORY_BYTES = 80 * GIB;
const FIXED_OVERHEAD_BYTES = GIB;
const WEIGHT_OVERHEAD_FRACTION = 0.1;

const positive = () => z.int().min(1);

/** The fields of a Hugging Face `config.json` that the estimate reads; other keys are ignored. */
const modelConfigSchema = z.object({
  hidden_size: positive(),
  num_hidden_layers: positive(),
  intermediate_size: positive(),
  vocab_size: positive(),
  num_attention_heads: positive(),
  // Models without grouped-query attention omit this; they have as many KV heads as heads.
  num_key_value_heads: positive().optional(),
  // Qwen3 sets head_dim explicitly; older models derive it from hidden_size.
  head_dim: positive().optional(),
  tie_word_embeddings: z.boolean().optional(),
});

export interface ModelShape {
  readonly hiddenSize: number;
  readonly layers: number;
  readonly intermediateSize: number;
  readonly vocabSize: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly tiedEmbeddings: boolean;
}

export type ShapeResult = { readonly ok: true; readonly shape: ModelShape } | { readonly ok: false; readonly reason: string };

/** Reads a parsed `config.json`; the reason names the missing or malformed fields. */
export function parseModelShape(json: unknown): ShapeResult {
  const parsed = modelConfigSchema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
    return { ok: false, reason: `config.json lacks or has invalid ${fields.join(', ')}` };
  }
  const c = parsed.data;
  return {
    ok: true,
    shape: {
      hiddenSize: c.hidden_size,
      layers: c.num_hidden_layers,
      intermediateSize: c.intermediate_size,
      vocabSize: c.vocab_size,
      heads: c.num_attention_heads,
      kvHeads: c.num_key_value_heads ?? c.num_attention_heads,
      headDim: c.head_dim ?? Math.floor(c.hidden_size / c.num_attention_heads),
      tiedEmbeddings: c.tie_word_embeddings ?? false,
    },
  };
}

/** Parameters of the model: embeddings, attention, gated MLP, norms and (untied) output head. */
export function countParameters(s: ModelShape): number {
  const embeddings = s.vocabSize * s.hiddenSize;
  const outputHead = s.tiedEmbeddings ? 0 : embeddings;
  const queryOut = 2 * s.hiddenSize * s.heads * s.headDim;
  const keyValue = 2 * s.hiddenSize * s.kvHeads * s.headDim;
  const mlp = 3 * s.hiddenSize * s.intermediateSize;
  const norms = 2 * s.hiddenSize;
  const perLayer = queryOut + keyValue + mlp + norms;
  return embeddings + outputHead + s.layers * perLayer + s.hiddenSize;
}

export type Dtype = ExperimentConfig['backends']['dtype'];

export function bytesPerParameter(dtype: Dtype): number {
  return dtype === 'fp32' || dtype === 'float32' ? 4 : 2;
}

export interface EstimateOptions {
  readonly dtype: Dtype;
  readonly tensorParallel: number;
  /** Tokens of one context: the longest prompt plus the longest reply. */
  readonly contextTokens: number;
  /** Sequences the server holds at once. */
  readonly sequences: number;
}

/** Bytes on one GPU, broken down so messages can explain the total. */
export interface MemoryEstimate {
  readonly parameters: number;
  readonly weightBytes: number;
  readonly kvCacheBytes: number;
  readonly overheadBytes: number;
  readonly totalBytes: number;
}

export function estimateGpuMemory(shape: ModelShape, options: EstimateOptions): MemoryEstimate {
  const bytes = bytesPerParameter(options.dtype);
  const tp = Math.max(1, options.tensorParallel);
  const parameters = countParameters(shape);
  const weightBytes = (parameters * bytes) / tp;
  const kvHeadsPerGpu = Math.ceil(shape.kvHeads / tp);
  // Keys and values (2) for every layer, KV head and token of every sequence.
  const kvCacheBytes = 2 * shape.layers * kvHeadsPerGpu * shape.headDim * bytes * options.contextTokens * options.sequences;
  const overheadBytes = FIXED_OVERHEAD_BYTES + WEIGHT_OVERHEAD_FRACTION * weightBytes;
  return { parameters, weightBytes, kvCacheBytes, overheadBytes, totalBytes: weightBytes + kvCacheBytes + overheadBytes };
}

const UNIT_BYTES: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1e3,
  KiB: 1024,
  MB: 1e6,
  MiB: 1024 ** 2,
  GB: 1e9,
  GiB: GIB,
  TB: 1e12,
  TiB: 1024 ** 4,
};

/** Bytes in a size such as `80GiB` or `40GB` (the schema's pattern); undefined when malformed. */
export function parseMemorySize(text: string): number | undefined {
  const match = memorySizePattern.exec(text);
  const amount = match?.[1];
  const unit = match?.[2];
  if (amount === undefined || unit === undefined) return undefined;
  const scale = UNIT_BYTES[unit];
  return scale === undefined ? undefined : Number(amount) * scale;
}

export function formatGiB(bytes: number): string {
  return `${(bytes / GIB).toFixed(1)} GiB`;
}

export function formatParameters(count: number): string {
  return count >= 1e9 ? `${(count / 1e9).toFixed(1)}B` : `${(count / 1e6).toFixed(1)}M`;
}
