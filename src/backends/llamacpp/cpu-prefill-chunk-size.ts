// The CPU's default prefill step. With flash attention off, llama.cpp writes a score for every prompt
// token of a step against every cell it attends to (the cells in use, padded to a multiple of 256) for
// every head, and passes over that matrix several times (scale, mask, softmax, the product with V). Where
// that matrix outweighs the layer's matrix products, smaller steps are faster: the matrix stays in cache
// and less of it is masked. Where the products dominate, bigger steps serve more tokens per weight read.
// Measured on the 2-core AMD EPYC VM (docs/native.md, "Prefill steps on the CPU"): the tiny model (64 wide,
// 4 heads) prefilled 1,024 tokens in steps of 256 in 0.71× the time of steps of 512, the trained tiny-text
// model (128 wide) 768 tokens in 0.90×; the Llama 3.2 1B shape (2,048 wide, 32 heads, Q4_0) was within
// noise either way (1.04× at 512 tokens, 0.96× at 1,024).
import type { NativeModelMetadata } from "./addon-types.js";
import { architectureNumbers, attentionShape } from "./attention-shape.js";

/** The step that attention-bound shapes get: llama.cpp pads the cells attended to to multiples of 256. */
export const attentionBoundPrefillChunk = 256;

/**
 * The attended cells at which a shape is compared: a prompt long enough to take more than one step of 512
 * attends over about this many. The shape, not the context size, decides: the score matrix grows with the
 * cells in use, whatever the context holds (a 480-token prompt was as much faster in steps of 256 with
 * contextSize 512 as with 16,384).
 */
export const referenceAttendedCells = 1024;

/**
 * Scores one token writes per layer at the reference length, over the weights one layer multiplies it
 * by, above which a shape counts as attention-bound. Measured faster in steps of 256: tiny (0.067),
 * tiny-text (0.019). Measured level: the 1B shape (0.00054). Real small models sit near the latter
 * (computed, not measured, from their published shapes: SmolLM-135M 0.0026, Qwen2.5-0.5B 0.00096), and
 * the bound keeps them on whole micro-batches as before.
 */
export const attentionBoundRatio = 0.005;

/**
 * The default prefillChunkSize on the CPU: 256 for a shape whose attention scores outweigh its matrix
 * products with flash attention off, the batch size otherwise and wherever the metadata lacks the shape.
 */
export function cpuPrefillChunkSize(
  metadata: NativeModelMetadata,
  batchSize: number,
  flashAttention: "auto" | "on" | "off",
): number {
  // "auto" turns flash attention on for the CPU in llama.cpp: no score matrix is written.
  if (flashAttention !== "off" || batchSize <= attentionBoundPrefillChunk) return batchSize;
  const ratio = attentionScoreRatio(metadata);
  return ratio !== undefined && ratio > attentionBoundRatio ? attentionBoundPrefillChunk : batchSize;
}

/** referenceAttendedCells × heads over the weights of one layer (attention and feed-forward), or undefined. */
export function attentionScoreRatio(metadata: NativeModelMetadata): number | undefined {
  const width = metadata.embeddingSize;
  const { heads, kvHeads, keyLength, valueLength } = attentionShape(metadata);
  const feedForward = feedForwardWeights(width, architectureNumbers(metadata));
  if (
    heads === undefined ||
    kvHeads === undefined ||
    keyLength === undefined ||
    valueLength === undefined ||
    feedForward === undefined ||
    !(width > 0)
  )
    return undefined;
  const attention =
    width * heads * keyLength + width * kvHeads * (keyLength + valueLength) + heads * valueLength * width;
  return (referenceAttendedCells * heads) / (attention + feedForward);
}

/**
 * The feed-forward weights one token is multiplied by in a layer (gate, up and down). A mixture of experts
 * counts the experts a token uses, at their own size where the GGUF gives it (expert_feed_forward_length;
 * feed_forward_length is then the dense layers' size), and its shared experts.
 */
function feedForwardWeights(width: number, value: (key: string) => number | undefined): number | undefined {
  const dense = value("feed_forward_length");
  const expertsUsed = value("expert_used_count");
  if (expertsUsed === undefined) return dense === undefined ? undefined : 3 * width * dense;
  const expert = value("expert_feed_forward_length") ?? dense;
  if (expert === undefined) return undefined;
  // Qwen2-MoE gives its one shared expert's size; DeepSeek-style GGUFs give a count of shared experts
  // the size of the others (llama.cpp: n_ff_exp × n_expert_shared).
  const sharedLength = value("expert_shared_feed_forward_length");
  const sharedCount = value("expert_shared_count");
  const shared =
    sharedLength !== undefined
      ? sharedLength * (sharedCount ?? 1)
      : sharedCount !== undefined
        ? expert * sharedCount
        : 0;
  return 3 * width * (expert * expertsUsed + shared);
}
