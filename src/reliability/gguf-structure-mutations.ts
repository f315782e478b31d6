// Mutations that keep the file well-formed GGUF but make the model lie about itself (bad-inputs case
// 5 and beyond): vocabulary and embedding sizes that disagree, duplicate or empty tokens, special ids
// outside the vocabulary, missing, renamed or mis-shaped tensors, hyper-parameters at extremes,
// unknown architectures and tokenizers, NaN weights. The file is re-encoded with our GGUF writer.
import type { GgmlTypeName } from "../gguf/ggml-type.js";
import { ggmlRowBytes } from "../gguf/ggml-type.js";
import { encodeGgufHeader } from "../gguf/gguf-header-encoder.js";
import type { GgufArrayItem, GgufMetadataEntry, GgufValue } from "../gguf/gguf-value.js";
import type { FuzzSeed } from "./fuzz-seed-models.js";
import type { Mutation } from "./gguf-byte-mutations.js";
import type { SeededRandom } from "./seeded-random.js";

export interface DraftTensor {
  name: string;
  shape: number[];
  type: GgmlTypeName;
  bytes: Uint8Array;
}

export interface Draft {
  metadata: GgufMetadataEntry[];
  tensors: DraftTensor[];
}

type StructureMutation = (draft: Draft, random: SeededRandom) => string | undefined;

export function draftOf(seed: FuzzSeed): Draft {
  return {
    metadata: [...seed.info.metadata],
    tensors: seed.info.tensors.map((tensor) => ({
      name: tensor.name,
      shape: [...tensor.shape],
      type: tensor.type,
      bytes: seed.bytes.subarray(tensor.fileOffset, tensor.fileOffset + tensor.byteSize),
    })),
  };
}

/** Header from our encoder, then each tensor's bytes cut or zero-padded to the size its shape needs. */
export function assemble(draft: Draft): Uint8Array {
  const layout = encodeGgufHeader(draft.metadata, draft.tensors);
  const bytes = new Uint8Array(layout.totalBytes);
  bytes.set(layout.header);
  draft.tensors.forEach((tensor, index) => {
    const size = layout.tensorByteSizes[index]!;
    bytes.set(tensor.bytes.subarray(0, size), layout.header.length + layout.tensorOffsets[index]!);
  });
  return bytes;
}

export function findEntry(draft: Draft, key: string): number {
  return draft.metadata.findIndex((entry) => entry.key === key);
}

export function setEntry(draft: Draft, key: string, value: GgufValue): void {
  const index = findEntry(draft, key);
  if (index === -1) draft.metadata.push({ key, value });
  else draft.metadata[index] = { key, value };
}

export function arrayOf(draft: Draft, key: string): GgufArrayItem[] | undefined {
  const entry = draft.metadata[findEntry(draft, key)];
  return entry?.value.type === "array" ? [...entry.value.values] : undefined;
}

export function replaceArray(draft: Draft, key: string, values: GgufArrayItem[]): void {
  const entry = draft.metadata[findEntry(draft, key)];
  if (entry?.value.type === "array") setEntry(draft, key, { ...entry.value, values });
}

const tokensKey = "tokenizer.ggml.tokens";
const specialKeys = ["bos", "eos", "unknown", "padding", "separator", "eot", "eom"].map(
  (name) => `tokenizer.ggml.${name}_token_id`,
);
const integerHyperParameters = [
  "llama.block_count",
  "llama.embedding_length",
  "llama.feed_forward_length",
  "llama.attention.head_count",
  "llama.attention.head_count_kv",
  "llama.context_length",
  "llama.rope.dimension_count",
  "llama.vocab_size",
  "llama.expert_count",
  "llama.expert_used_count",
  "general.file_type",
];
const floatHyperParameters = [
  "llama.rope.freq_base",
  "llama.attention.layer_norm_rms_epsilon",
  "llama.rope.scaling.factor",
];
const integerExtremes = [0, 1, 3, 7, 33, 1 << 16, 0x7fffffff, 0xffffffff];
const floatExtremes = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -1, 3e38, 1e-45];
const architectures = [
  "gpt2",
  "qwen2",
  "bert",
  "mamba",
  "t5",
  "rwkv6",
  "gemma3",
  "deepseek2",
  "",
  "not-an-arch",
];
const tokenizerModels = ["gpt2", "llama", "bert", "t5", "rwkv", "none", "no_vocab", "plamo2", "", "unknown"];
const otherTypes: readonly GgmlTypeName[] = ["F16", "BF16", "Q4_0", "Q8_0", "Q4_K", "Q6_K", "I32", "F64"];

const mutations: Readonly<Record<string, StructureMutation>> = {
  "drop last token": (draft) => {
    const tokens = arrayOf(draft, tokensKey);
    if (tokens === undefined) return undefined;
    replaceArray(draft, tokensKey, tokens.slice(0, -1));
    return `tokens array shortened to ${tokens.length - 1}`;
  },
  "append tokens": (draft, random) => {
    const tokens = arrayOf(draft, tokensKey);
    if (tokens === undefined) return undefined;
    const extra = random.pick([1, 32, 1000]);
    for (let index = 0; index < extra; index++) tokens.push(`<extra_${index}>`);
    replaceArray(draft, tokensKey, tokens);
    return `${extra} tokens appended (scores, types and embeddings not)`;
  },
  "duplicate token": (draft, random) => {
    const tokens = arrayOf(draft, tokensKey);
    if (tokens === undefined || tokens.length < 2) return undefined;
    const target = random.integer(tokens.length);
    const source = random.integer(tokens.length);
    if (target === source) return undefined;
    tokens[target] = tokens[source]!;
    replaceArray(draft, tokensKey, tokens);
    return `token ${target} set to the text of token ${source} (${JSON.stringify(tokens[source])})`;
  },
  "empty token": (draft, random) => {
    const tokens = arrayOf(draft, tokensKey);
    if (tokens === undefined) return undefined;
    const target = random.integer(tokens.length);
    tokens[target] = "";
    const collide = random.chance(0.5) && tokens.length > 1;
    if (collide) tokens[(target + 1) % tokens.length] = `[EMPTY_${target}]`;
    replaceArray(draft, tokensKey, tokens);
    return `token ${target} emptied${collide ? `, next token set to "[EMPTY_${target}]"` : ""}`;
  },
  "special id out of range": (draft, random) => {
    const tokens = arrayOf(draft, tokensKey)?.length ?? 0;
    const key = random.pick(specialKeys);
    const value = random.pick([tokens, tokens + 1, 0x7fffffff, 0xffffffff, 0xfffffffe]);
    setEntry(draft, key, { type: "uint32", value });
    return `${key} set to ${value} (vocabulary of ${tokens})`;
  },
  "negative special id": (draft, random) => {
    const key = random.pick(specialKeys);
    const value = random.pick([-1, -2, -0x80000000]);
    setEntry(draft, key, { type: "int32", value });
    return `${key} set to int32 ${value}`;
  },
  "special id without bos": (draft) => {
    setEntry(draft, "tokenizer.ggml.add_bos_token", { type: "bool", value: true });
    setEntry(draft, "tokenizer.ggml.bos_token_id", { type: "int32", value: -1 });
    setEntry(draft, "tokenizer.ggml.add_eos_token", { type: "bool", value: true });
    setEntry(draft, "tokenizer.ggml.eos_token_id", { type: "int32", value: -1 });
    return "add_bos/add_eos true with bos/eos ids -1";
  },
  "token type extreme": (draft, random) => {
    const types = arrayOf(draft, "tokenizer.ggml.token_type");
    if (types === undefined) return undefined;
    const index = random.integer(types.length);
    const value = random.pick([0, 7, 8, -1, 0x7fffffff, -0x80000000]);
    types[index] = value;
    replaceArray(draft, "tokenizer.ggml.token_type", types);
    return `token_type[${index}] set to ${value}`;
  },
  "non-finite score": (draft, random) => {
    const scores = arrayOf(draft, "tokenizer.ggml.scores");
    if (scores === undefined) return undefined;
    const index = random.integer(scores.length);
    const value = random.pick([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    scores[index] = value;
    replaceArray(draft, "tokenizer.ggml.scores", scores);
    return `scores[${index}] set to ${value}`;
  },
  "malformed merge": (draft, random) => {
    const merges = arrayOf(draft, "tokenizer.ggml.merges");
    if (merges === undefined || merges.length === 0) return undefined;
    const index = random.integer(merges.length);
    const value = random.pick(["", " ", "nospace", "a b c", "  ", " x", "\u0000 \u0000"]);
    merges[index] = value;
    replaceArray(draft, "tokenizer.ggml.merges", merges);
    return `merges[${index}] set to ${JSON.stringify(value)}`;
  },
  "drop tokenizer key": (draft, random) => {
    const keys = draft.metadata
      .filter((entry) => entry.key.startsWith("tokenizer."))
      .map((entry) => entry.key);
    if (keys.length === 0) return undefined;
    const key = random.pick(keys);
    draft.metadata.splice(findEntry(draft, key), 1);
    return `${key} removed`;
  },
  "retype tokenizer array": (draft, random) => {
    const keys = ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"];
    const key = random.pick(keys);
    const values = arrayOf(draft, key);
    if (values === undefined) return undefined;
    const itemType = random.pick(["int32", "float32", "uint8"] as const);
    const converted = values.map((value) => (typeof value === "number" ? Math.trunc(value) & 0x7f : 1));
    setEntry(draft, key, { type: "array", itemType, values: converted });
    return `${key} re-typed as an array of ${itemType}`;
  },
  "integer hyper-parameter extreme": (draft, random) => {
    const key = random.pick(integerHyperParameters);
    const value = random.pick(integerExtremes);
    setEntry(draft, key, { type: "uint32", value });
    return `${key} set to ${value}`;
  },
  "float hyper-parameter extreme": (draft, random) => {
    const key = random.pick(floatHyperParameters);
    const value = random.pick(floatExtremes);
    setEntry(draft, key, { type: "float32", value });
    return `${key} set to ${value}`;
  },
  "hyper-parameter of the wrong type": (draft, random) => {
    const key = random.pick(integerHyperParameters.slice(0, 7));
    const value = random.pick<GgufValue>([
      { type: "string", value: "32" },
      { type: "float32", value: 2.5 },
      { type: "bool", value: true },
      { type: "int64", value: -1n },
      { type: "array", itemType: "uint32", values: [1, 2, 3] },
    ]);
    setEntry(draft, key, value);
    return `${key} given as a ${value.type}`;
  },
  "other architecture": (draft, random) => {
    const architecture = random.pick(architectures);
    setEntry(draft, "general.architecture", { type: "string", value: architecture });
    return `general.architecture set to ${JSON.stringify(architecture)}`;
  },
  "other tokenizer model": (draft, random) => {
    const model = random.pick(tokenizerModels);
    setEntry(draft, "tokenizer.ggml.model", { type: "string", value: model });
    return `tokenizer.ggml.model set to ${JSON.stringify(model)}`;
  },
  "other pre-tokenizer": (draft, random) => {
    const pre = random.pick(["llama3", "qwen2", "deepseek-llm", "tekken", "", "unknown-pre"]);
    setEntry(draft, "tokenizer.ggml.pre", { type: "string", value: pre });
    return `tokenizer.ggml.pre set to ${JSON.stringify(pre)}`;
  },
  "drop tensor": (draft, random) => {
    if (draft.tensors.length === 0) return undefined;
    const [removed] = draft.tensors.splice(random.integer(draft.tensors.length), 1);
    return `tensor ${removed!.name} removed`;
  },
  "rename tensor": (draft, random) => {
    if (draft.tensors.length === 0) return undefined;
    const tensor = random.pick(draft.tensors);
    const before = tensor.name;
    const name = random.pick([before.replace("blk.0", "blk.9"), `${before}.x`, "", "output.weight"]);
    if (draft.tensors.some((other) => other.name === name)) return undefined;
    tensor.name = name;
    return `tensor ${before} renamed ${JSON.stringify(name)}`;
  },
  "extra tensor": (draft, random) => {
    const name = random.pick(["blk.0.mystery.weight", "blk.5.attn_q.weight", "rope_freqs.weight"]);
    if (draft.tensors.some((other) => other.name === name)) return undefined;
    draft.tensors.push({ name, shape: [32, 4], type: "F32", bytes: new Uint8Array(512) });
    return `extra tensor ${name} [32, 4] added`;
  },
  "tensor shape changed": (draft, random) => {
    const tensor = draft.tensors.length === 0 ? undefined : random.pick(draft.tensors);
    if (tensor === undefined) return undefined;
    const before = tensor.shape.join("x");
    const change = random.integer(5);
    if (change === 0 && tensor.shape.length === 2) tensor.shape.reverse();
    else if (change === 1) tensor.shape[tensor.shape.length - 1]! += random.pick([-1, 1, 32]);
    else if (change === 2) tensor.shape.push(random.pick([1, 2]));
    else if (change === 3 && tensor.shape.length > 1) tensor.shape.pop();
    else tensor.shape[0] = tensor.shape[0]! * 2;
    if (tensor.shape.some((size) => size <= 0) || ggmlRowBytes(tensor.type, tensor.shape[0]!) === undefined)
      return undefined;
    return `tensor ${tensor.name} reshaped from ${before} to ${tensor.shape.join("x")}`;
  },
  "tensor type changed": (draft, random) => {
    const tensor = draft.tensors.length === 0 ? undefined : random.pick(draft.tensors);
    if (tensor === undefined) return undefined;
    const type = random.pick(otherTypes);
    if (ggmlRowBytes(type, tensor.shape[0]!) === undefined) return undefined;
    const before = tensor.type;
    tensor.type = type;
    return `tensor ${tensor.name} re-typed from ${before} to ${type} (bytes reused)`;
  },
  "non-finite weights": (draft, random) => {
    const candidates = draft.tensors.filter((tensor) => tensor.type === "F32");
    if (candidates.length === 0) return undefined;
    const tensor = random.pick(candidates);
    const value = random.pick([Number.NaN, Number.POSITIVE_INFINITY]);
    const values = new Float32Array(tensor.bytes.length / 4).fill(value);
    tensor.bytes = new Uint8Array(values.buffer);
    return `tensor ${tensor.name} filled with ${value}`;
  },
  "huge chat template": (draft, random) => {
    const size = random.pick([1 << 16, 1 << 20]);
    setEntry(draft, "tokenizer.chat_template", { type: "string", value: "{{ x }}".repeat(size / 7) });
    return `tokenizer.chat_template of ${size} bytes`;
  },
};

export const structureMutationNames = Object.keys(mutations);

/** One structural mutation of `seed`, or undefined when the chosen one does not apply to it. */
export function mutateStructure(seed: FuzzSeed, random: SeededRandom): Mutation | undefined {
  const name = random.pick(structureMutationNames);
  const draft = draftOf(seed);
  const what = mutations[name]!(draft, random);
  if (what === undefined) return undefined;
  try {
    return { bytes: assemble(draft), description: `${name}: ${what}` };
  } catch {
    // Our writer refuses some combinations (a row length the new type cannot hold): try another.
    return undefined;
  }
}
