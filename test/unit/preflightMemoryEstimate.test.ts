/**
 * The memory estimator against hand computations: a tiny model small enough to add up on paper,
 * and the shape of Qwen3-14B, whose published size (14.8B parameters) anchors the count.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countParameters, estimateGpuMemory, GIB, parseMemorySize, parseModelShape, type ModelShape } from '../../server/src/config/memoryEstimate.js';

const fixtures = join(__dirname, '..', 'fixtures', 'models');

function shapeOf(name: string): ModelShape {
  const result = parseModelShape(JSON.parse(readFileSync(join(fixtures, name, 'config.json'), 'utf8')));
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.shape;
}

describe('memory estimate', () => {
  void test('reads the shape of a config.json, deriving head_dim and honouring tied embeddings', () => {
    assert.deepEqual(shapeOf('tiny'), {
      hiddenSize: 64,
      layers: 2,
      intermediateSize: 128,
      vocabSize: 1000,
      heads: 4,
      kvHeads: 2,
      headDim: 16,
      tiedEmbeddings: true,
    });
  });

  void test('counts the parameters of the tiny model as computed by hand', () => {
    // Embeddings 1000×64 = 64,000 (the output head is tied, so it adds nothing).
    // Per layer: q and o 2×64×(4×16) = 8,192; k and v 2×64×(2×16) = 4,096;
    // gated MLP 3×64×128 = 24,576; two norms 2×64 = 128; together 36,992, ×2 layers = 73,984.
    // Final norm 64. Total 64,000 + 73,984 + 64 = 138,048.
    assert.equal(countParameters(shapeOf('tiny')), 138_048);
  });

  void test('counts Qwen3-14B at its published 14.8B parameters', () => {
    // Embeddings and untied head 2×151,936×5,120 = 1,555,824,640.
    // Per layer: q and o 2×5,120×5,120 = 52,428,800; k and v 2×5,120×1,024 = 10,485,760;
    // MLP 3×5,120×17,408 = 267,386,880; norms 10,240; together 330,311,680, ×40 = 13,212,467,200.
    // Final norm 5,120. Total 14,768,296,960.
    const count = countParameters(shapeOf('qwen3-14b'));
    assert.equal(count, 14_768_296_960);
    assert.ok(Math.abs(count - 14.8e9) / 14.8e9 < 0.01);
  });

  void test('adds weights, KV cache and overhead for the tiny model as computed by hand', () => {
    const e = estimateGpuMemory(shapeOf('tiny'), { dtype: 'bf16', tensorParallel: 1, contextTokens: 100, sequences: 2 });
    // Weights 138,048 × 2 bytes = 276,096.
    assert.equal(e.weightBytes, 276_096);
    // KV cache: 2 (k and v) × 2 layers × 2 KV heads × 16 dims × 2 bytes × 100 tokens × 2 sequences = 51,200.
    assert.equal(e.kvCacheBytes, 51_200);
    // Overhead: 1 GiB + 10% of the weights.
    assert.equal(e.overheadBytes, GIB + 27_609.6);
    assert.equal(e.totalBytes, 276_096 + 51_200 + GIB + 27_609.6);
  });

  void test('splits Qwen3-14B weights and KV heads across tensor-parallel GPUs', () => {
    const shape = shapeOf('qwen3-14b');
    const one = estimateGpuMemory(shape, { dtype: 'bf16', tensorParallel: 1, contextTokens: 4608, sequences: 1 });
    const four = estimateGpuMemory(shape, { dtype: 'bf16', tensorParallel: 4, contextTokens: 4608, sequences: 1 });
    // bf16 weights are 29,536,593,920 bytes, about 27.5 GiB, on one GPU and a quarter of that on four.
    assert.equal(one.weightBytes, 29_536_593_920);
    assert.equal(four.weightBytes, 29_536_593_920 / 4);
    // KV cache on one GPU: 2 × 40 layers × 8 heads × 128 × 2 bytes × 4,608 tokens = 754,974,720; 8 heads / 4 = 2 per GPU.
    assert.equal(one.kvCacheBytes, 754_974_720);
    assert.equal(four.kvCacheBytes, 754_974_720 / 4);
    // A GPU always holds at least one KV head, so TP 16 does not shrink the cache below one head.
    const sixteen = estimateGpuMemory(shape, { dtype: 'bf16', tensorParallel: 16, contextTokens: 4608, sequences: 1 });
    assert.equal(sixteen.kvCacheBytes, 754_974_720 / 8);
  });

  void test('doubles the weights for 32-bit dtypes', () => {
    const shape = shapeOf('tiny');
    const options = { tensorParallel: 1, contextTokens: 1, sequences: 1 } as const;
    assert.equal(estimateGpuMemory(shape, { ...options, dtype: 'fp32' }).weightBytes, 138_048 * 4);
    assert.equal(estimateGpuMemory(shape, { ...options, dtype: 'float16' }).weightBytes, 138_048 * 2);
  });

  void test('reports which fields a config.json lacks', () => {
    const result = parseModelShape({ hidden_size: 64, num_hidden_layers: 2 });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /intermediate_size/);
  });

  void test('parses memory sizes in binary and decimal units', () => {
    assert.equal(parseMemorySize('80GiB'), 80 * GIB);
    assert.equal(parseMemorySize('40GB'), 40e9);
    assert.equal(parseMemorySize('24000MiB'), 24000 * 1024 ** 2);
    assert.equal(parseMemorySize('eighty'), undefined);
  });
});
