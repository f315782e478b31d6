// Builds a llama-architecture GGUF model from hyper-parameters, a real tokenizer and a seed: weights
// from N(0, 0.02), norm weights 1. Tensors are produced lazily, a block of rows at a time, so writing
// an 8B model needs a few MB of memory. Same inputs, same bytes.
import { llama2ChatTemplate, llama3ChatTemplate } from "./chat-templates.js";
import { llamaFileTypes } from "./ggml-type.js";
import type { GgufTensorDescription } from "./gguf-header-encoder.js";
import { type GgufMetadataEntry, gguf } from "./gguf-value.js";
import type { GgufTensorSource } from "./gguf-writer.js";
import { hashString, SeededNormalSource } from "./seeded-normal-source.js";
import { encodedByteLength, encodeTensorValues, type WritableTensorType } from "./tensor-encoding.js";
import type { Vocabulary } from "./vocabulary.js";

export interface LlamaHyperParameters {
  readonly embeddingLength: number;
  readonly blockCount: number;
  readonly headCount: number;
  readonly headCountKv: number;
  readonly feedForwardLength: number;
  readonly contextLength: number;
  readonly ropeFreqBase: number;
  readonly rmsEpsilon: number;
  /** True when the output projection reuses the token embeddings (no `output.weight`). */
  readonly tiedOutput: boolean;
}

export interface LlamaModelSpec {
  readonly name: string;
  readonly hyperParameters: LlamaHyperParameters;
  readonly vocabulary: Vocabulary;
  readonly type: WritableTensorType;
  readonly seed: number;
  /** How the weights start; "synthetic" (default) or "trainable" (see `initialStandardDeviation`). */
  readonly initialization?: LlamaInitialization;
}

export type LlamaInitialization = "synthetic" | "trainable";

export const weightStandardDeviation = 0.02;
const chunkElements = 1 << 20;

/** Tensor names and shapes (ggml order: [row length, rows]) of a llama model, in file order. */
export function llamaTensorDescriptions(
  hyperParameters: LlamaHyperParameters,
  vocabularySize: number,
  type: WritableTensorType,
): GgufTensorDescription[] {
  const {
    embeddingLength: embedding,
    headCount,
    headCountKv,
    feedForwardLength: feedForward,
  } = hyperParameters;
  const headDimension = embedding / headCount;
  const matrix = (name: string, rowLength: number, rows: number): GgufTensorDescription => ({
    name,
    shape: [rowLength, rows],
    type,
  });
  // Norms stay F32, as llama.cpp's quantizer leaves 1-D tensors.
  const norm = (name: string): GgufTensorDescription => ({ name, shape: [embedding], type: "F32" });
  const tensors = [matrix("token_embd.weight", embedding, vocabularySize), norm("output_norm.weight")];
  if (!hyperParameters.tiedOutput) tensors.push(matrix("output.weight", embedding, vocabularySize));
  for (let block = 0; block < hyperParameters.blockCount; block++) {
    const prefix = `blk.${block}`;
    tensors.push(
      norm(`${prefix}.attn_norm.weight`),
      matrix(`${prefix}.attn_q.weight`, embedding, headCount * headDimension),
      matrix(`${prefix}.attn_k.weight`, embedding, headCountKv * headDimension),
      matrix(`${prefix}.attn_v.weight`, embedding, headCountKv * headDimension),
      matrix(`${prefix}.attn_output.weight`, headCount * headDimension, embedding),
      norm(`${prefix}.ffn_norm.weight`),
      matrix(`${prefix}.ffn_gate.weight`, embedding, feedForward),
      matrix(`${prefix}.ffn_down.weight`, feedForward, embedding),
      matrix(`${prefix}.ffn_up.weight`, embedding, feedForward),
    );
  }
  return tensors;
}

export function llamaMetadata(spec: LlamaModelSpec): GgufMetadataEntry[] {
  const parameters = spec.hyperParameters;
  const fileType = llamaFileTypes[spec.type]!;
  const chatTemplate = spec.vocabulary.model === "gpt2" ? llama3ChatTemplate : llama2ChatTemplate;
  const tokenizerEntries = spec.vocabulary.entries.filter(
    (entry) => entry.key !== "tokenizer.chat_template" && entry.key !== "tokenizer.ggml.add_bos_token",
  );
  return [
    { key: "general.architecture", value: gguf.string("llama") },
    { key: "general.name", value: gguf.string(spec.name) },
    { key: "general.file_type", value: gguf.uint32(fileType) },
    { key: "general.quantization_version", value: gguf.uint32(2) },
    { key: "general.alignment", value: gguf.uint32(32) },
    { key: "tessera.synthetic.seed", value: gguf.uint32(spec.seed) },
    { key: "llama.context_length", value: gguf.uint32(parameters.contextLength) },
    { key: "llama.embedding_length", value: gguf.uint32(parameters.embeddingLength) },
    { key: "llama.block_count", value: gguf.uint32(parameters.blockCount) },
    { key: "llama.feed_forward_length", value: gguf.uint32(parameters.feedForwardLength) },
    { key: "llama.attention.head_count", value: gguf.uint32(parameters.headCount) },
    { key: "llama.attention.head_count_kv", value: gguf.uint32(parameters.headCountKv) },
    { key: "llama.rope.freq_base", value: gguf.float32(parameters.ropeFreqBase) },
    {
      key: "llama.rope.dimension_count",
      value: gguf.uint32(parameters.embeddingLength / parameters.headCount),
    },
    { key: "llama.attention.layer_norm_rms_epsilon", value: gguf.float32(parameters.rmsEpsilon) },
    { key: "llama.vocab_size", value: gguf.uint32(spec.vocabulary.tokenCount) },
    ...tokenizerEntries,
    { key: "tokenizer.ggml.add_bos_token", value: gguf.bool(true) },
    { key: "tokenizer.chat_template", value: gguf.string(chatTemplate) },
  ];
}

/**
 * Standard deviation a weight starts from. "synthetic": N(0, 0.02) everywhere, the usual transformer
 * start, kept for the speed presets (their bytes must not change). "trainable": a start for llama.cpp's
 * trainer, which never updates three kinds of tensor (measured: zero change after training):
 * - token_embd.weight: llama_context::opt_init leaves it out ("FIXME");
 * - attn_k and attn_v: attention reads K and V back from the KV cache, and the copy into the cache
 *   (GGML_OP_SET_ROWS) has no backward pass, so no gradient reaches them.
 * They stay random projections for ever. At 0.02 the embeddings are drowned in the residual stream by
 * the trained layers' outputs, and the model stops seeing which token it is on (it learns the unigram
 * distribution, ~16% accuracy on the addition task); unit-scale embeddings and K/V projections scaled by
 * 1/sqrt(width) keep the token's identity and the attention keys informative.
 */
export function initialStandardDeviation(
  name: string,
  rowLength: number,
  initialization: LlamaInitialization,
): number {
  if (initialization === "synthetic") return weightStandardDeviation;
  if (name === "token_embd.weight") return 1;
  if (name.endsWith(".attn_k.weight") || name.endsWith(".attn_v.weight")) return 1 / Math.sqrt(rowLength);
  return weightStandardDeviation;
}

function* normData(elementCount: number): Generator<Uint8Array> {
  const ones = new Float32Array(elementCount).fill(1);
  yield new Uint8Array(ones.buffer);
}

function* randomData(
  description: GgufTensorDescription,
  seed: number,
  initialization: LlamaInitialization,
): Generator<Uint8Array> {
  const type = description.type as WritableTensorType;
  const rowLength = description.shape[0]!;
  const rows = description.shape[1] ?? 1;
  const rowsPerChunk = Math.max(1, Math.floor(chunkElements / rowLength));
  const source = new SeededNormalSource(
    hashString(description.name, seed),
    initialStandardDeviation(description.name, rowLength, initialization),
  );
  const values = new Float32Array(rowsPerChunk * rowLength);
  const encoded = new Uint8Array(encodedByteLength(type, values.length));
  for (let row = 0; row < rows; row += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, rows - row) * rowLength;
    const slice = count === values.length ? values : values.subarray(0, count);
    source.fill(slice);
    const byteLength = encodedByteLength(type, count);
    const target = encoded.subarray(0, byteLength);
    encodeTensorValues(type, slice, target);
    yield target;
  }
}

/** Metadata and lazily generated tensors of the model `spec` describes, ready for `writeGgufFile`. */
export function synthesizeLlamaModel(spec: LlamaModelSpec): {
  metadata: GgufMetadataEntry[];
  tensors: GgufTensorSource[];
} {
  const descriptions = llamaTensorDescriptions(spec.hyperParameters, spec.vocabulary.tokenCount, spec.type);
  const tensors = descriptions.map(
    (description): GgufTensorSource => ({
      ...description,
      data: () =>
        description.shape.length === 1
          ? normData(description.shape[0]!)
          : randomData(description, spec.seed, spec.initialization ?? "synthetic"),
    }),
  );
  return { metadata: llamaMetadata(spec), tensors };
}
