// Mutations on raw bytes: bit flips, truncations inside every section, and header or tensor-table
// fields set to extremes (counts and lengths near 2^32 and 2^64, offsets past the end, unknown types,
// NaN and infinity bit patterns in float values).

import type { FuzzSeed } from "./fuzz-seed-models.js";
import type { GgufField, GgufFieldKind } from "./gguf-layout-map.js";
import type { SeededRandom } from "./seeded-random.js";

export interface Mutation {
  readonly bytes: Uint8Array;
  /** What was done, precise enough to rebuild the file by hand. */
  readonly description: string;
}

const headerShare = 0.75;

export function flipBits(seed: FuzzSeed, random: SeededRandom): Mutation {
  const bytes = seed.bytes.slice();
  const flips = random.between(1, 8);
  const inHeader = random.chance(headerShare) || seed.info.tensors.length === 0;
  const limit = inHeader ? seed.info.tensorDataOffset : bytes.length;
  const positions: string[] = [];
  for (let index = 0; index < flips; index++) {
    const offset = random.integer(limit);
    const bit = random.integer(8);
    bytes[offset]! ^= 1 << bit;
    positions.push(`${offset}.${bit}`);
  }
  return { bytes, description: `flipped bits (byte.bit) ${positions.join(", ")}` };
}

export function truncate(seed: FuzzSeed, random: SeededRandom): Mutation {
  const section = random.pick(seed.layout.sections);
  const length = section.end - section.start;
  const choices = [
    section.start,
    section.start + 1,
    section.start + Math.floor(length / 2),
    section.end - 1,
    section.start + random.integer(Math.max(1, length)),
  ];
  const cut = Math.max(0, Math.min(seed.bytes.length - 1, random.pick(choices)));
  return {
    bytes: seed.bytes.slice(0, cut),
    description: `truncated to ${cut} bytes, inside ${section.name} [${section.start}, ${section.end})`,
  };
}

const float32Patterns = [0x7fc00000, 0x7f800000, 0xff800000, 0x00000001, 0x7f7fffff, 0x80000000];

function extremesFor(field: GgufField, original: bigint, fileSize: number): bigint[] {
  const common = [0n, 1n, original + 1n, original - 1n, original * 2n];
  switch (field.size) {
    case 8:
      return [
        ...common,
        (1n << 31n) - 1n,
        1n << 31n,
        (1n << 32n) - 1n,
        1n << 32n,
        (1n << 63n) - 1n,
        1n << 63n,
        (1n << 64n) - 1n,
        BigInt(fileSize),
        BigInt(fileSize) + 1n,
        BigInt(fileSize) * 1024n,
      ];
    case 4:
      return [
        ...common,
        13n,
        64n,
        255n,
        0xffffn,
        (1n << 31n) - 1n,
        1n << 31n,
        (1n << 32n) - 1n,
        ...float32Patterns.map(BigInt),
      ];
    case 2:
      return [...common, 0x7fffn, 0x8000n, 0xffffn];
    default:
      return [...common, 2n, 0x7fn, 0x80n, 0xffn];
  }
}

function writeUnsigned(bytes: Uint8Array, offset: number, size: number, value: bigint): void {
  const wrapped = BigInt.asUintN(size * 8, value);
  for (let index = 0; index < size; index++) {
    bytes[offset + index] = Number((wrapped >> BigInt(index * 8)) & 0xffn);
  }
}

function readUnsigned(bytes: Uint8Array, offset: number, size: number): bigint {
  let value = 0n;
  for (let index = size - 1; index >= 0; index--) value = (value << 8n) | BigInt(bytes[offset + index]!);
  return value;
}

/** Kind first, then a field of that kind: rare kinds (the tensor count) get as many cases as common ones. */
function pickField(seed: FuzzSeed, random: SeededRandom): GgufField {
  const byKind = new Map<GgufFieldKind, GgufField[]>();
  for (const field of seed.layout.fields) {
    const list = byKind.get(field.kind) ?? [];
    list.push(field);
    byKind.set(field.kind, list);
  }
  return random.pick(random.pick([...byKind.values()]));
}

export function setFieldToExtreme(seed: FuzzSeed, random: SeededRandom): Mutation {
  const field = pickField(seed, random);
  if (field.size === 0) return flipBits(seed, random);
  const bytes = seed.bytes.slice();
  const original = readUnsigned(bytes, field.offset, field.size);
  const value = random.pick(extremesFor(field, original, bytes.length));
  writeUnsigned(bytes, field.offset, field.size, value);
  return {
    bytes,
    description: `${field.kind} of ${field.owner} at byte ${field.offset} (${field.size} bytes) set from ${original} to ${BigInt.asUintN(field.size * 8, value)}`,
  };
}

const headerVariants: readonly { readonly offset: number; readonly value: number; readonly what: string }[] =
  [
    { offset: 0, value: 0x4c4d4747, what: 'magic "GGML"' },
    { offset: 0, value: 0x47475546, what: "magic byte-swapped" },
    { offset: 0, value: 0, what: "magic zero" },
    { offset: 4, value: 0, what: "version 0" },
    { offset: 4, value: 1, what: "version 1" },
    { offset: 4, value: 2, what: "version 2" },
    { offset: 4, value: 4, what: "version 4 (from the future)" },
    { offset: 4, value: 0x03000000, what: "version 3 byte-swapped" },
    { offset: 4, value: 0xffffffff, what: "version 2^32-1" },
  ];

export function replaceHeaderStart(seed: FuzzSeed, random: SeededRandom): Mutation {
  const variant = random.pick(headerVariants);
  const bytes = seed.bytes.slice();
  new DataView(bytes.buffer).setUint32(variant.offset, variant.value, true);
  return { bytes, description: `header start replaced: ${variant.what}` };
}
