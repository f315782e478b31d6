// createContext's option checks. Each bound stands for a llama.cpp assertion or failure that our
// options reach (docs/native-assertions.md); everything here runs before any native call.
import { totalmem } from "node:os";
import type { FlashAttention, NativeContextOptions, NativeModelMetadata } from "./addon-types.js";
import { attentionShape } from "./attention-shape.js";
import { cpuPrefillChunkSize } from "./cpu-prefill-chunk-size.js";
import { IncompatibleOptionsError } from "./errors/incompatible-options-error.js";
import type { LlamaContextOptions } from "./llama-context.js";
import { maximumContextCells, maximumMicroBatch, maximumSequences, maximumThreads } from "./native-limits.js";
import { checkBoolean, checkChoice, checkInteger, rejectUnknownOptions } from "./native-option-checks.js";
import { physicalCoreCount } from "./native-thread-count.js";

const contextOptionNames: ReadonlySet<string> = new Set([
  "contextSize",
  "batchSize",
  "sequences",
  "threads",
  "unifiedKvCache",
  "prefillChunkSize",
  "flashAttention",
]);

const flashAttentionChoices: readonly FlashAttention[] = ["auto", "on", "off"];

export function resolveContextOptions(
  options: LlamaContextOptions,
  metadata: NativeModelMetadata,
  gpuLayers = 0,
): NativeContextOptions {
  rejectUnknownOptions("createContext options", options, contextOptionNames);
  const sequences =
    options.sequences === undefined ? 1 : checkInteger("sequences", options.sequences, 1, maximumSequences);
  const trainContext = metadata.trainContextSize > 0 ? metadata.trainContextSize : 4096;
  const contextSize =
    options.contextSize === undefined
      ? Math.min(trainContext, 4096)
      : checkInteger("contextSize", options.contextSize, 16, 1 << 24);
  const batchSize =
    options.batchSize === undefined ? 512 : checkInteger("batchSize", options.batchSize, 1, 1 << 16);
  const threads =
    options.threads === undefined
      ? physicalCoreCount()
      : checkInteger("threads", options.threads, 1, maximumThreads);
  const unifiedKvCache =
    options.unifiedKvCache === undefined ? false : checkBoolean("unifiedKvCache", options.unifiedKvCache);

  // llama.cpp reserves one output row per sequence at creation and asserts that this fits the batch
  // (GGML_ASSERT(n_outputs_max <= cparams.n_outputs_max), llama-context.cpp:2200): exit 134.
  if (batchSize < sequences) {
    throw new IncompatibleOptionsError(
      "batchSize",
      batchSize,
      `batchSize (${batchSize}) must be >= sequences (${sequences}): each sequence needs one output row per step`,
      `use batchSize >= ${sequences} or fewer sequences`,
    );
  }
  // The addon caps the micro-batch at 512 tokens; a model without causal attention must see a whole
  // batch in one micro-batch (GGML_ASSERT(causal_attn || n_ubatch >= n_tokens_all),
  // llama-context.cpp:1724), so a longer prompt chunk aborted the process.
  if (
    batchSize > maximumMicroBatch &&
    metadata.values[`${metadata.architecture}.attention.causal`] === "false"
  ) {
    throw new IncompatibleOptionsError(
      "batchSize",
      batchSize,
      `batchSize (${batchSize}) is above ${maximumMicroBatch}, but this model's attention is not causal, so llama.cpp must take each batch in one micro-batch of at most ${maximumMicroBatch} tokens`,
      `use batchSize <= ${maximumMicroBatch}`,
    );
  }
  const cells = contextSize * sequences;
  if (cells > maximumContextCells) {
    throw new IncompatibleOptionsError(
      "contextSize",
      contextSize,
      `contextSize (${contextSize}) × sequences (${sequences}) is ${cells} cells, more than llama.cpp's ${maximumContextCells}`,
      "use a smaller contextSize or fewer sequences",
    );
  }
  const cacheBytes = cells * kvBytesPerCell(metadata);
  if (cacheBytes > totalmem()) {
    throw new IncompatibleOptionsError(
      "contextSize",
      contextSize,
      `contextSize (${contextSize}) × sequences (${sequences}) needs a KV cache of about ${gibibytes(cacheBytes)} GiB, ` +
        `but this machine has ${gibibytes(totalmem())} GiB of memory (llama.cpp clears the whole cache at creation)`,
      "use a smaller contextSize or fewer sequences",
    );
  }
  // On the CPU, llama.cpp's "auto" turns flash attention on: a prompt prefilled from empty gets faster,
  // but decoding at depth ~512 was ~1.5× slower and a second chat turn's first token ~10× slower on the
  // tiny model (docs/native.md, docs/benchmarks.md). Off on the CPU, as node-llama-cpp; llama.cpp
  // decides where a GPU runs layers.
  const flashAttention =
    options.flashAttention === undefined
      ? gpuLayers > 0
        ? "auto"
        : "off"
      : checkChoice("flashAttention", options.flashAttention, flashAttentionChoices);
  // A GPU backend cannot interrupt a graph, so a prompt is decoded one micro-batch per step there and an
  // abort lands within one micro-batch (docs/gpu.md). On the CPU a chunk may fill the batch, except for a
  // shape whose attention scores outweigh its matrix products (cpu-prefill-chunk-size.ts): there steps of
  // 256 tokens are faster. flashAttention is read first because "on" writes no score matrix.
  const prefillChunkSize =
    options.prefillChunkSize === undefined
      ? gpuLayers > 0
        ? Math.min(batchSize, maximumMicroBatch)
        : cpuPrefillChunkSize(metadata, batchSize, flashAttention)
      : Math.min(checkInteger("prefillChunkSize", options.prefillChunkSize, 1, 1 << 16), batchSize);
  return {
    contextSize,
    batchSize,
    sequences,
    threads,
    batchThreads: threads,
    unifiedKvCache,
    prefillChunkSize,
    flashAttention,
  };
}

/**
 * F16 keys and values of every layer for one cell, from the GGUF's attention shape (grouped-query
 * attention stores head_count_kv heads). A recurrent model has no per-cell cache, so this overestimates
 * it; the estimate only refuses contexts that cannot fit in the machine's memory at all.
 */
export function kvBytesPerCell(metadata: NativeModelMetadata): number {
  const { kvHeads, keyLength, valueLength } = attentionShape(metadata);
  const keys =
    keyLength !== undefined && kvHeads !== undefined ? keyLength * kvHeads : metadata.embeddingSize;
  const values =
    valueLength !== undefined && kvHeads !== undefined ? valueLength * kvHeads : metadata.embeddingSize;
  return Math.max(1, metadata.layerCount) * (keys + values) * 2;
}

function gibibytes(bytes: number): string {
  return (bytes / 1024 ** 3).toFixed(1);
}
