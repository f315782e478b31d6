// Mutations of the bytes inside strings (family "string-bytes"): NUL bytes, invalid UTF-8 (lone
// continuation bytes, truncated sequences, CESU-8 surrogate halves, overlong forms, code points past
// U+10FFFF) in token texts, merges, keys, string values and tensor names; and texts that differ in
// JavaScript but are one text after llama.cpp's C-string read (it stops at the first NUL: defect 7).
// Files are re-encoded with our writer; bytes our writer cannot produce from a JavaScript string are
// written over a placeholder of the same length afterwards.
import type { FuzzSeed } from "./fuzz-seed-models.js";
import type { Mutation } from "./gguf-byte-mutations.js";
import {
  arrayOf,
  assemble,
  type Draft,
  draftOf,
  findEntry,
  replaceArray,
  setEntry,
} from "./gguf-structure-mutations.js";
import type { SeededRandom } from "./seeded-random.js";

const rawSequences: readonly { readonly what: string; readonly bytes: readonly number[] }[] = [
  { what: "NUL", bytes: [0x00] },
  { what: "three NULs", bytes: [0x00, 0x00, 0x00] },
  { what: "overlong NUL C0 80", bytes: [0xc0, 0x80] },
  { what: "overlong '/' C0 AF", bytes: [0xc0, 0xaf] },
  { what: "overlong 3-byte E0 80 AF", bytes: [0xe0, 0x80, 0xaf] },
  { what: "high surrogate half ED A0 80", bytes: [0xed, 0xa0, 0x80] },
  { what: "low surrogate half ED B0 80", bytes: [0xed, 0xb0, 0x80] },
  { what: "CESU-8 surrogate pair", bytes: [0xed, 0xa0, 0xbd, 0xed, 0xb2, 0xa9] },
  { what: "lone continuation byte 80", bytes: [0x80] },
  { what: "byte FF", bytes: [0xff] },
  { what: "byte FE", bytes: [0xfe] },
  { what: "truncated 2-byte C3", bytes: [0xc3] },
  { what: "truncated 3-byte E2 82", bytes: [0xe2, 0x82] },
  { what: "code point past U+10FFFF", bytes: [0xf4, 0x90, 0x80, 0x80] },
  { what: "5-byte form", bytes: [0xf8, 0x88, 0x80, 0x80, 0x80] },
  { what: "BOM (valid)", bytes: [0xef, 0xbb, 0xbf] },
  { what: "U+FFFD (valid)", bytes: [0xef, 0xbf, 0xbd] },
];

const placeholderByte = 0x01;

interface RawPatch {
  /** The string as written by our encoder: `before` + placeholder + `after`. */
  readonly before: string;
  readonly after: string;
  readonly bytes: readonly number[];
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** The string value to put in the draft for `patch`, and afterwards where to write its raw bytes. */
function placeholderText(patch: RawPatch): string {
  return `${patch.before}${String.fromCharCode(placeholderByte).repeat(patch.bytes.length)}${patch.after}`;
}

/** Writes `patch.bytes` over its placeholder: found by its length prefix and content, in the header. */
function applyPatch(bytes: Uint8Array, patch: RawPatch): boolean {
  const content = utf8(placeholderText(patch));
  const pattern = new Uint8Array(8 + content.length);
  new DataView(pattern.buffer).setBigUint64(0, BigInt(content.length), true);
  pattern.set(content, 8);
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(pattern);
  if (at === -1) return false;
  bytes.set(patch.bytes, at + 8 + utf8(patch.before).length);
  return true;
}

type Target = (draft: Draft, random: SeededRandom, text: (original: string) => string) => string | undefined;

function splitAt(original: string, random: SeededRandom): [string, string] {
  const characters = [...original];
  const cut = random.pick([0, characters.length, random.integer(characters.length + 1)]);
  return [characters.slice(0, cut).join(""), characters.slice(cut).join("")];
}

function stringArrayItem(key: string): Target {
  return (draft, random, text) => {
    const values = arrayOf(draft, key);
    if (values === undefined || values.length === 0 || typeof values[0] !== "string") return undefined;
    const index = random.integer(values.length);
    values[index] = text(values[index] as string);
    replaceArray(draft, key, values);
    return `${key}[${index}]`;
  };
}

const targets: Readonly<Record<string, Target>> = {
  "token text": stringArrayItem("tokenizer.ggml.tokens"),
  merge: stringArrayItem("tokenizer.ggml.merges"),
  "string value": (draft, random, text) => {
    const keys = draft.metadata.filter((entry) => entry.value.type === "string").map((entry) => entry.key);
    if (keys.length === 0) return undefined;
    const key = random.pick(keys);
    const entry = draft.metadata[findEntry(draft, key)]!;
    if (entry.value.type !== "string") return undefined;
    setEntry(draft, key, { type: "string", value: text(entry.value.value) });
    return `value of ${key}`;
  },
  key: (draft, random, text) => {
    const index = random.integer(draft.metadata.length);
    const entry = draft.metadata[index]!;
    draft.metadata[index] = { key: text(entry.key), value: entry.value };
    return `key ${entry.key}`;
  },
  "tensor name": (draft, random, text) => {
    if (draft.tensors.length === 0) return undefined;
    const tensor = random.pick(draft.tensors);
    const before = tensor.name;
    tensor.name = text(before);
    return `name of tensor ${before}`;
  },
};

function rawBytesInString(seed: FuzzSeed, random: SeededRandom): Mutation | undefined {
  const draft = draftOf(seed);
  const sequence = random.pick(rawSequences);
  const targetName = random.pick(Object.keys(targets));
  let patch: RawPatch | undefined;
  const where = targets[targetName]!(draft, random, (original) => {
    const [before, after] = splitAt(original, random);
    patch = { before, after, bytes: sequence.bytes };
    return placeholderText(patch);
  });
  if (where === undefined || patch === undefined) return undefined;
  const bytes = tryAssemble(draft);
  if (bytes === undefined || !applyPatch(bytes, patch)) return undefined;
  return {
    bytes,
    description: `raw bytes in a string: ${sequence.what} written into ${where} after ${JSON.stringify(patch.before)}`,
  };
}

function tryAssemble(draft: Draft): Uint8Array | undefined {
  try {
    return assemble(draft);
  } catch {
    return undefined; // our writer refuses this draft (a name too long): another case is drawn
  }
}

type CStringCollision = (draft: Draft, random: SeededRandom) => string | undefined;

const absurdShadowValues = [0, 0x7fffffff, 0xffffffff, 1025, 513];

// Each one makes two texts that JavaScript tells apart equal for a reader that stops at the first NUL.
const collisions: Readonly<Record<string, CStringCollision>> = {
  "token equal to another up to a NUL": (draft, random) => {
    const tokens = arrayOf(draft, "tokenizer.ggml.tokens");
    if (tokens === undefined || tokens.length < 2) return undefined;
    const target = random.integer(tokens.length);
    const source = random.integer(tokens.length);
    if (target === source) return undefined;
    const suffix = random.pick(["", "x", "\u0000", tokens[target] as string]);
    tokens[target] = `${tokens[source] as string}\u0000${suffix}`;
    replaceArray(draft, "tokenizer.ggml.tokens", tokens);
    return `token ${target} = token ${source}'s text + ${JSON.stringify(`\u0000${suffix}`)}`;
  },
  "token starting with a NUL": (draft, random) => {
    const tokens = arrayOf(draft, "tokenizer.ggml.tokens");
    if (tokens === undefined || tokens.length < 2) return undefined;
    const target = random.integer(tokens.length);
    tokens[target] = `\u0000${tokens[target] as string}`;
    const collide = random.chance(0.5);
    if (collide) tokens[(target + 1) % tokens.length] = `[EMPTY_${target}]`;
    replaceArray(draft, "tokenizer.ggml.tokens", tokens);
    return `token ${target} starts with NUL${collide ? `, next token "[EMPTY_${target}]"` : ""}`;
  },
  "key shadowed by a key with a NUL": (draft, random) => {
    const integerKeys = draft.metadata
      .filter((entry) => entry.value.type === "uint32" || entry.value.type === "int32")
      .map((entry) => entry.key);
    if (integerKeys.length === 0) return undefined;
    const key = random.pick(integerKeys);
    const value = random.pick(absurdShadowValues);
    // Before the real key: gguf_find_key returns the first key whose C string matches.
    draft.metadata.splice(findEntry(draft, key), 0, {
      key: `${key}\u0000shadow`,
      value: { type: "uint32", value },
    });
    return `key "${key}\\0shadow" = ${value} inserted before ${key}`;
  },
  "string value cut by a NUL": (draft, random) => {
    const choices: readonly (readonly [string, string])[] = [
      ["tokenizer.ggml.model", "none\u0000gpt2"],
      ["tokenizer.ggml.model", "no_vocab\u0000llama"],
      ["tokenizer.ggml.model", "llama\u0000gpt2"],
      ["tokenizer.ggml.model", "bert\u0000"],
      ["tokenizer.ggml.model", "\u0000llama"],
      ["general.architecture", "llama\u0000x"],
      ["general.architecture", "\u0000llama"],
      ["general.architecture", "gpt2\u0000llama"],
      ["tokenizer.ggml.pre", "llama3\u0000default"],
    ];
    const [key, value] = random.pick(choices);
    setEntry(draft, key, { type: "string", value });
    return `${key} = ${JSON.stringify(value)}`;
  },
  "tensor name cut by a NUL": (draft, random) => {
    if (draft.tensors.length < 2) return undefined;
    const tensor = random.pick(draft.tensors);
    const other = random.pick(draft.tensors);
    const before = tensor.name;
    tensor.name = random.pick([`${before}\u0000x`, `${other.name}\u0000x`, `\u0000${before}`]);
    if (draft.tensors.some((candidate) => candidate !== tensor && candidate.name === tensor.name))
      return undefined;
    return `tensor ${before} renamed ${JSON.stringify(tensor.name)}`;
  },
};

export const stringMutationNames = ["raw bytes in a string", ...Object.keys(collisions)];

/** One string mutation of `seed`, or undefined when the chosen one does not apply to it. */
export function mutateStrings(seed: FuzzSeed, random: SeededRandom): Mutation | undefined {
  const name = random.pick(stringMutationNames);
  if (name === "raw bytes in a string") return rawBytesInString(seed, random);
  const draft = draftOf(seed);
  const what = collisions[name]!(draft, random);
  if (what === undefined) return undefined;
  const bytes = tryAssemble(draft);
  return bytes === undefined ? undefined : { bytes, description: `${name}: ${what}` };
}
