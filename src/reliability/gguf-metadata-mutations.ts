// Mutations that keep the file valid GGUF but make its metadata absurd for llama.cpp (family
// "absurd-metadata"): context lengths of 0 or 2^64-1, head counts that do not divide the embedding or
// come as per-layer arrays, rope and key/value dimensions that fit no head, tokenizer models over the
// other kind of vocabulary, token types out of range or byte types on texts that are no byte token,
// merges of absent tokens, every special id (eot, eom, fim, mask, cls...) out of range or of the wrong
// type, a garbage precompiled charsmap under the T5 tokenizer.
import type { GgufArrayItem, GgufValue } from "../gguf/gguf-value.js";
import type { FuzzSeed } from "./fuzz-seed-models.js";
import type { Mutation } from "./gguf-byte-mutations.js";
import {
  arrayOf,
  assemble,
  type Draft,
  draftOf,
  replaceArray,
  setEntry,
} from "./gguf-structure-mutations.js";
import type { SeededRandom } from "./seeded-random.js";

type MetadataMutation = (draft: Draft, random: SeededRandom) => string | undefined;

function architectureOf(draft: Draft): string {
  const entry = draft.metadata.find((candidate) => candidate.key === "general.architecture");
  return entry?.value.type === "string" ? entry.value.value : "llama";
}

function tokenCount(draft: Draft): number {
  return arrayOf(draft, "tokenizer.ggml.tokens")?.length ?? 0;
}

const wideIntegers: readonly GgufValue[] = [
  { type: "uint32", value: 0 },
  { type: "uint32", value: 1 },
  { type: "uint32", value: 0xffffffff },
  { type: "int32", value: -1 },
  { type: "int32", value: -0x80000000 },
  { type: "uint64", value: 1n << 63n },
  { type: "uint64", value: (1n << 64n) - 1n },
  { type: "int64", value: -1n },
];

const specialIdNames = [
  "bos",
  "eos",
  "eot",
  "eom",
  "unknown",
  "seperator",
  "padding",
  "cls",
  "mask",
  "fim_pre",
  "fim_suf",
  "fim_mid",
  "fim_pad",
  "fim_rep",
  "fim_sep",
  "prefix",
  "suffix",
  "middle",
];

const mutations: Readonly<Record<string, MetadataMutation>> = {
  "context length absurd": (draft, random) => {
    const key = `${architectureOf(draft)}.context_length`;
    const value = random.pick(wideIntegers);
    setEntry(draft, key, value);
    return `${key} = ${value.type} ${String("value" in value ? value.value : "")}`;
  },
  "head count not dividing the embedding": (draft, random) => {
    const prefix = architectureOf(draft);
    const heads = random.pick([3, 5, 7, 31, 33, 64]);
    const kv = random.pick([1, heads, heads + 1, 0]);
    setEntry(draft, `${prefix}.attention.head_count`, { type: "uint32", value: heads });
    setEntry(draft, `${prefix}.attention.head_count_kv`, { type: "uint32", value: kv });
    return `${prefix}.attention.head_count = ${heads}, head_count_kv = ${kv}`;
  },
  "per-layer head counts": (draft, random) => {
    const prefix = architectureOf(draft);
    const key = random.pick([
      `${prefix}.attention.head_count`,
      `${prefix}.attention.head_count_kv`,
      `${prefix}.feed_forward_length`,
    ]);
    const values = random.pick<number[]>([
      [0],
      [2, 2],
      [],
      [0, 0, 0, 0],
      new Array(600).fill(2),
      [0xffffffff],
    ]);
    setEntry(draft, key, { type: "array", itemType: "uint32", values });
    return `${key} given per layer as [${values.slice(0, 4).join(", ")}${values.length > 4 ? ", ..." : ""}] (${values.length} items)`;
  },
  "rope or head dimension absurd": (draft, random) => {
    const prefix = architectureOf(draft);
    const key = random.pick([
      `${prefix}.rope.dimension_count`,
      `${prefix}.attention.key_length`,
      `${prefix}.attention.value_length`,
      `${prefix}.rope.dimension_sections`,
    ]);
    const value = random.pick([0, 1, 3, 17, 64, 1 << 20, 0xffffffff]);
    setEntry(draft, key, { type: "uint32", value });
    return `${key} = ${value}`;
  },
  "rope scaling absurd": (draft, random) => {
    const prefix = architectureOf(draft);
    const choice = random.integer(4);
    if (choice === 0) {
      const type = random.pick(["linear", "yarn", "longrope", "none", "", "bogus"]);
      setEntry(draft, `${prefix}.rope.scaling.type`, { type: "string", value: type });
      return `${prefix}.rope.scaling.type = ${JSON.stringify(type)}`;
    }
    const key = random.pick([
      `${prefix}.rope.freq_base`,
      `${prefix}.rope.scaling.factor`,
      `${prefix}.rope.scaling.original_context_length`,
      `${prefix}.attention.sliding_window`,
    ]);
    const value = random.pick([0, -1, -1e30, 1e-40]);
    setEntry(
      draft,
      key,
      key.endsWith("_length") || key.endsWith("window")
        ? { type: "int32", value: Math.trunc(value) }
        : { type: "float32", value },
    );
    return `${key} = ${value}`;
  },
  "tokenizer model over the other vocabulary": (draft, random) => {
    const model = random.pick([
      "gpt2",
      "llama",
      "t5",
      "bert",
      "rwkv",
      "plamo2",
      "gemma4",
      "hybriddna",
      "whitespace",
    ]);
    setEntry(draft, "tokenizer.ggml.model", { type: "string", value: model });
    return `tokenizer.ggml.model = ${JSON.stringify(model)}`;
  },
  "token types out of range": (draft, random) => {
    const types = arrayOf(draft, "tokenizer.ggml.token_type");
    if (types === undefined || types.length === 0) return undefined;
    const value = random.pick([-1, 0, 7, 255, 0x7fffffff, 6, 3, 4]);
    const share = random.pick([0.01, 0.5, 1]);
    let changed = 0;
    for (let index = 0; index < types.length; index++) {
      if (random.chance(share)) {
        types[index] = value;
        changed++;
      }
    }
    replaceArray(draft, "tokenizer.ggml.token_type", types);
    return `${changed} of ${types.length} token types set to ${value}`;
  },
  "byte type on a text that is no byte token": (draft, random) => {
    const types = arrayOf(draft, "tokenizer.ggml.token_type");
    const tokens = arrayOf(draft, "tokenizer.ggml.tokens");
    if (types === undefined || tokens === undefined || tokens.length === 0) return undefined;
    const index = random.integer(Math.min(types.length, tokens.length));
    const text = random.pick(["a", "<0x", "<0xZZ>", "<0x4", "ab", tokens[index] as string]);
    if (!tokens.includes(text)) tokens[index] = text;
    types[index] = 6;
    replaceArray(draft, "tokenizer.ggml.tokens", tokens);
    replaceArray(draft, "tokenizer.ggml.token_type", types);
    return `token ${index} (${JSON.stringify(tokens[index])}) typed as a byte token`;
  },
  "merges of absent tokens": (draft, random) => {
    const merges = arrayOf(draft, "tokenizer.ggml.merges") ?? [];
    const extra: GgufArrayItem[] = random.pick([
      ["zz qq", "q q", "zzq q"],
      ["H e", "He l", "Hel lo"],
      new Array(100).fill("a b"),
      ["", " ", "  ", "x"],
    ]);
    const values = random.chance(0.5) ? [...extra, ...merges] : [...merges, ...extra];
    setEntry(draft, "tokenizer.ggml.merges", { type: "array", itemType: "string", values });
    return `merges ${JSON.stringify(extra.slice(0, 4))} added (${values.length} in all)`;
  },
  "special id absurd": (draft, random) => {
    const name = random.pick(specialIdNames);
    const key = `tokenizer.ggml.${name}_token_id`;
    const tokens = tokenCount(draft);
    const value = random.pick<GgufValue>([
      { type: "uint32", value: tokens },
      { type: "uint32", value: 0xffffffff },
      { type: "int32", value: -2 },
      { type: "int64", value: BigInt(tokens) },
      { type: "uint64", value: (1n << 32n) + 1n },
      { type: "float32", value: 1.5 },
      { type: "string", value: "1" },
      { type: "array", itemType: "uint32", values: [1, 2] },
    ]);
    setEntry(draft, key, value);
    return `${key} = ${value.type} ${value.type === "array" ? "[1, 2]" : String(value.value)} (vocabulary of ${tokens})`;
  },
  "add flags absurd": (draft, random) => {
    const key = random.pick([
      "tokenizer.ggml.add_bos_token",
      "tokenizer.ggml.add_eos_token",
      "tokenizer.ggml.add_sep_token",
      "tokenizer.ggml.add_space_prefix",
      "tokenizer.ggml.remove_extra_whitespaces",
    ]);
    const value = random.pick<GgufValue>([
      { type: "bool", value: true },
      { type: "uint8", value: 2 },
      { type: "string", value: "true" },
    ]);
    setEntry(draft, key, value);
    if (random.chance(0.5))
      setEntry(draft, "tokenizer.ggml.bos_token_id", { type: "uint32", value: 0xfffffff0 });
    return `${key} = ${value.type} ${String(value.type === "array" ? "" : value.value)}`;
  },
  "suppress tokens absurd": (draft, random) => {
    const values = random.pick([[-1, 0x7fffffff], new Array(1000).fill(0), []]);
    setEntry(draft, "tokenizer.ggml.suppress_tokens", { type: "array", itemType: "int32", values });
    return `tokenizer.ggml.suppress_tokens = ${values.length} ids`;
  },
  "precompiled charsmap garbage": (draft, random) => {
    const size = random.pick([4, 8, 64, 1024]);
    const blob = Array.from({ length: size }, () => random.integer(256));
    // The first uint32 is the size of the double-array that follows: make it plausible but wrong.
    const declared = random.pick([0, 4, size - 8, size - 5]);
    for (let index = 0; index < 4; index++) blob[index] = (Math.max(0, declared) >> (index * 8)) & 0xff;
    setEntry(draft, "tokenizer.ggml.precompiled_charsmap", {
      type: "array",
      itemType: "uint8",
      values: blob,
    });
    setEntry(draft, "tokenizer.ggml.model", { type: "string", value: "t5" });
    return `tokenizer.ggml.model = "t5" with a ${size}-byte random charsmap (declared ${declared})`;
  },
  "token type count absurd": (draft, random) => {
    const value = random.pick([0, 1, 0xffffffff]);
    setEntry(draft, "tokenizer.ggml.token_type_count", { type: "uint32", value });
    return `tokenizer.ggml.token_type_count = ${value}`;
  },
};

export const metadataMutationNames = Object.keys(mutations);

/** One absurd-metadata mutation of `seed`, or undefined when the chosen one does not apply to it. */
export function mutateMetadata(seed: FuzzSeed, random: SeededRandom): Mutation | undefined {
  const name = random.pick(metadataMutationNames);
  const draft = draftOf(seed);
  const what = mutations[name]!(draft, random);
  if (what === undefined) return undefined;
  try {
    return { bytes: assemble(draft), description: `${name}: ${what}` };
  } catch {
    return undefined; // our writer refuses this draft: another case is drawn
  }
}
