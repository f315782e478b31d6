// The CPU's default prefill step. With flash attention off, llama.cpp writes a score for every prompt
// token of a step against every cell it attends to (steps × cells × heads floats a layer) and passes over
// that matrix several times (scale, mask, softmax, the product with V). Where that matrix outweighs the
// layer's matrix products, smaller steps are faster: the matrix stays in cache and less of it is masked.
// Where the products dominate, bigger steps are faster: each weight read serves more tokens.
// Measured on the 2-core AMD EPYC VM (docs/benchmarks.md, "Round twelve"; `node
// benchmarks/prefill-chunk-size.mjs`): the tiny model (64 wide, 4 heads) prefilled 1,024 tokens in steps of
// 256 in 0.71× the time of steps of 512 (28.1 against 39.6 ms); the Llama 3.2 1B shape (2,048 wide, 32
// heads, Q4_0) prefilled 512 tokens in steps of 256 in 1.04× the time of steps of 512.
import type { NativeModelMetadata } from "./addon-types.js";
import { metadataPositiveNumber } from "./metadata-positive-number.js";

/** The step that attention-bound shapes get: llama.cpp pads the cells attended to to multiples of 256. */
export const attentionBoundPrefillChunk = 256;

/**
 * Scores one prompt token writes per layer at the context's full length, over the weights one layer
 * multiplies it by, above which a shape counts as attention-bound. The tiny model is at 0.08-0.13 for
 * contexts of 1,280-2,048 cells, the 1B shape at 0.002 for 4,096 (0.017 at 32,768, not measured): the
 * bound sits between them, nearer the measured fast side, so a real model keeps whole micro-batches.
 */
export const attentionBoundRatio = 0.05;

/**
 * The default prefillChunkSize on the CPU: the batch size, or 256 for a shape whose attention scores
 * outweigh its matrix products at this context size (flash attention off). Null metadata values (an
 * unknown architecture) keep the batch size.
 */
export function cpuPrefillChunkSize(
  metadata: NativeModelMetadata,
  contextSize: number,
  batchSize: number,
  flashAttention: "auto" | "on" | "off",
): number {
  // "auto" turns flash attention on for the CPU in llama.cpp: no score matrix is written.
  if (flashAttention !== "off" || batchSize <= attentionBoundPrefillChunk) return batchSize;
  const ratio = attentionScoreRatio(metadata, contextSize);
  return ratio !== undefined && ratio > attentionBoundRatio ? attentionBoundPrefillChunk : batchSize;
}

/** contextSize × heads over the weights of one layer (attention and feed-forward), or undefined. */
export function attentionScoreRatio(metadata: NativeModelMetadata, contextSize: number): number | undefined {
  const architecture = metadata.architecture;
  const width = metadata.embeddingSize;
  const heads = metadataPositiveNumber(metadata.values[`${architecture}.attention.head_count`]);
  const feedForward = metadataPositiveNumber(metadata.values[`${architecture}.feed_forward_length`]);
  if (heads === undefined || feedForward === undefined || !(width > 0)) return undefined;
  const kvHeads = metadataPositiveNumber(metadata.values[`${architecture}.attention.head_count_kv`]) ?? heads;
  const headSize = width / heads;
  const keyLength =
    metadataPositiveNumber(metadata.values[`${architecture}.attention.key_length`]) ?? headSize;
  const valueLength =
    metadataPositiveNumber(metadata.values[`${architecture}.attention.value_length`]) ?? headSize;
  // A mixture of experts multiplies each token by the experts it uses, not by all of them.
  const expertsUsed = metadataPositiveNumber(metadata.values[`${architecture}.expert_used_count`]) ?? 1;
  const attentionWeights =
    width * heads * keyLength + width * kvHeads * (keyLength + valueLength) + heads * valueLength * width;
  const feedForwardWeights = 3 * width * feedForward * expertsUsed;
  return (contextSize * heads) / (attentionWeights + feedForwardWeights);
}
