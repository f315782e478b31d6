// Checks that a parsed llama GGUF is self-consistent before anything indexes into it (bad-inputs
// case 5): hyper-parameters present, token arrays as long as the vocabulary, special ids inside it,
// every tensor present with the shape the hyper-parameters imply.
import { GgufModelMismatchError } from "./errors/gguf-model-mismatch-error.js";
import type { GgufFileInfo } from "./gguf-file-info.js";
import { type GgufValue, ggufPlainValue } from "./gguf-value.js";
import { type LlamaHyperParameters, llamaTensorDescriptions } from "./llama-synthesizer.js";

const specialTokenKeys = [
  "bos_token_id",
  "eos_token_id",
  "unknown_token_id",
  "padding_token_id",
  "separator_token_id",
  "eot_token_id",
  "eom_token_id",
];

/** llama.cpp's LLAMA_MAX_LAYERS: it asserts (aborts) on a larger block count. */
const maxBlockCount = 512;
/** Tensors of one llama block (two norms, four attention and three feed-forward matrices). */
const tensorsPerBlock = 9;

function integerOf(value: GgufValue | undefined): number | undefined {
  if (value === undefined || value.type === "array" || value.type === "float32" || value.type === "float64") {
    return undefined;
  }
  if (typeof value.value === "number") return value.value;
  if (typeof value.value === "bigint") return Number(value.value);
  return undefined;
}

function arrayLength(value: GgufValue | undefined): number | undefined {
  return value?.type === "array" ? value.values.length : undefined;
}

/** Throws GgufModelMismatchError listing every inconsistency found (all of them, not just the first). */
export function validateLlamaModel(info: GgufFileInfo): void {
  const problems: string[] = [];
  const get = (key: string): GgufValue | undefined => info.metadataByKey.get(key);
  const architecture = get("general.architecture");
  if (architecture?.type !== "string" || architecture.value !== "llama") {
    throw new GgufModelMismatchError({
      problems: [
        `general.architecture is ${architecture === undefined ? "missing" : JSON.stringify(ggufPlainValue(architecture))}, not "llama"`,
      ],
    });
  }
  const required = (key: string): number => {
    const value = integerOf(get(`llama.${key}`));
    if (value === undefined || value <= 0) problems.push(`llama.${key} is missing or not a positive integer`);
    return value ?? 0;
  };
  const embeddingLength = required("embedding_length");
  const blockCount = required("block_count");
  // Checked before the expected tensor list is built from it: a 59 kB file declaring 2^31-1 blocks
  // would otherwise list billions of tensors and exhaust the heap.
  if (blockCount > maxBlockCount) {
    problems.push(`llama.block_count ${blockCount} is above llama.cpp's limit of ${maxBlockCount}`);
  } else if (blockCount * tensorsPerBlock > info.tensors.length) {
    problems.push(
      `llama.block_count ${blockCount} needs ${blockCount * tensorsPerBlock} block tensors, the file has ${info.tensors.length} tensors in all`,
    );
  }
  const headCount = required("attention.head_count");
  const feedForwardLength = required("feed_forward_length");
  const headCountKv = integerOf(get("llama.attention.head_count_kv")) ?? headCount;
  if (headCount > 0 && embeddingLength % headCount !== 0) {
    problems.push(`embedding length ${embeddingLength} is not divisible by ${headCount} heads`);
  }
  if (headCountKv <= 0 || (headCount > 0 && headCount % headCountKv !== 0)) {
    problems.push(`${headCount} heads cannot be grouped over ${headCountKv} KV heads`);
  }

  const tokenCount = arrayLength(get("tokenizer.ggml.tokens"));
  if (tokenCount === undefined || tokenCount === 0)
    problems.push("tokenizer.ggml.tokens is missing or empty");
  const vocabularySize = tokenCount ?? 0;
  for (const key of ["tokenizer.ggml.scores", "tokenizer.ggml.token_type"]) {
    const length = arrayLength(get(key));
    if (length !== undefined && length !== vocabularySize) {
      problems.push(`${key} has ${length} entries for ${vocabularySize} tokens`);
    }
  }
  const declaredVocabulary = integerOf(get("llama.vocab_size"));
  if (declaredVocabulary !== undefined && declaredVocabulary !== vocabularySize) {
    problems.push(`llama.vocab_size is ${declaredVocabulary} but there are ${vocabularySize} tokens`);
  }
  for (const key of specialTokenKeys) {
    const id = integerOf(get(`tokenizer.ggml.${key}`));
    // -1 (as int32) is llama.cpp's "none"; anything else must index a real token.
    if (id !== undefined && id !== -1 && (id < 0 || id >= vocabularySize)) {
      problems.push(`tokenizer.ggml.${key} ${id} is outside the vocabulary of ${vocabularySize}`);
    }
  }

  if (problems.length === 0) {
    const hyperParameters: LlamaHyperParameters = {
      embeddingLength,
      blockCount,
      headCount,
      headCountKv,
      feedForwardLength,
      contextLength: 0,
      ropeFreqBase: 0,
      rmsEpsilon: 0,
      tiedOutput: !info.tensors.some((tensor) => tensor.name === "output.weight"),
    };
    const actual = new Map(info.tensors.map((tensor) => [tensor.name, tensor]));
    for (const expected of llamaTensorDescriptions(hyperParameters, vocabularySize, "F32")) {
      const tensor = actual.get(expected.name);
      if (tensor === undefined) problems.push(`tensor ${expected.name} is missing`);
      else if (tensor.shape.join("x") !== expected.shape.join("x")) {
        problems.push(`tensor ${expected.name} has shape [${tensor.shape}], expected [${expected.shape}]`);
      }
    }
  }
  if (problems.length > 0) throw new GgufModelMismatchError({ problems });
}
