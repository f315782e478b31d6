// ggml tensor types: wire code, elements per block and bytes per block (ggml.c `type_traits`).
// The reader needs every type to size tensors it does not decode; the writer encodes four of them.

interface GgmlTypeTraits {
  readonly code: number;
  readonly blockSize: number;
  readonly bytesPerBlock: number;
}

export const ggmlTypes = {
  F32: { code: 0, blockSize: 1, bytesPerBlock: 4 },
  F16: { code: 1, blockSize: 1, bytesPerBlock: 2 },
  Q4_0: { code: 2, blockSize: 32, bytesPerBlock: 18 },
  Q4_1: { code: 3, blockSize: 32, bytesPerBlock: 20 },
  Q5_0: { code: 6, blockSize: 32, bytesPerBlock: 22 },
  Q5_1: { code: 7, blockSize: 32, bytesPerBlock: 24 },
  Q8_0: { code: 8, blockSize: 32, bytesPerBlock: 34 },
  Q8_1: { code: 9, blockSize: 32, bytesPerBlock: 36 },
  Q2_K: { code: 10, blockSize: 256, bytesPerBlock: 84 },
  Q3_K: { code: 11, blockSize: 256, bytesPerBlock: 110 },
  Q4_K: { code: 12, blockSize: 256, bytesPerBlock: 144 },
  Q5_K: { code: 13, blockSize: 256, bytesPerBlock: 176 },
  Q6_K: { code: 14, blockSize: 256, bytesPerBlock: 210 },
  Q8_K: { code: 15, blockSize: 256, bytesPerBlock: 292 },
  IQ2_XXS: { code: 16, blockSize: 256, bytesPerBlock: 66 },
  IQ2_XS: { code: 17, blockSize: 256, bytesPerBlock: 74 },
  IQ3_XXS: { code: 18, blockSize: 256, bytesPerBlock: 98 },
  IQ1_S: { code: 19, blockSize: 256, bytesPerBlock: 50 },
  IQ4_NL: { code: 20, blockSize: 32, bytesPerBlock: 18 },
  IQ3_S: { code: 21, blockSize: 256, bytesPerBlock: 110 },
  IQ2_S: { code: 22, blockSize: 256, bytesPerBlock: 82 },
  IQ4_XS: { code: 23, blockSize: 256, bytesPerBlock: 136 },
  I8: { code: 24, blockSize: 1, bytesPerBlock: 1 },
  I16: { code: 25, blockSize: 1, bytesPerBlock: 2 },
  I32: { code: 26, blockSize: 1, bytesPerBlock: 4 },
  I64: { code: 27, blockSize: 1, bytesPerBlock: 8 },
  F64: { code: 28, blockSize: 1, bytesPerBlock: 8 },
  IQ1_M: { code: 29, blockSize: 256, bytesPerBlock: 56 },
  BF16: { code: 30, blockSize: 1, bytesPerBlock: 2 },
  TQ1_0: { code: 34, blockSize: 256, bytesPerBlock: 54 },
  TQ2_0: { code: 35, blockSize: 256, bytesPerBlock: 66 },
  MXFP4: { code: 39, blockSize: 32, bytesPerBlock: 17 },
} as const satisfies Record<string, GgmlTypeTraits>;

export type GgmlTypeName = keyof typeof ggmlTypes;

const namesByCode = new Map<number, GgmlTypeName>(
  Object.entries(ggmlTypes).map(([name, traits]) => [traits.code, name as GgmlTypeName]),
);

export function ggmlTypeName(code: number): GgmlTypeName | undefined {
  return namesByCode.get(code);
}

/** Bytes of one row of `elements` values; undefined when the row is not a whole number of blocks. */
export function ggmlRowBytes(type: GgmlTypeName, elements: number): number | undefined {
  const traits = ggmlTypes[type];
  if (elements % traits.blockSize !== 0) return undefined;
  return (elements / traits.blockSize) * traits.bytesPerBlock;
}

/**
 * Bytes of a whole tensor, as a bigint because an 8B model's shapes multiply past 2^53 in hostile files.
 * `shape` is in ggml order: shape[0] is the row length.
 */
export function ggmlTensorBytes(type: GgmlTypeName, shape: readonly bigint[]): bigint | undefined {
  const traits = ggmlTypes[type];
  const rowLength = shape[0] ?? 1n;
  if (rowLength % BigInt(traits.blockSize) !== 0n) return undefined;
  let bytes = (rowLength / BigInt(traits.blockSize)) * BigInt(traits.bytesPerBlock);
  for (let dimension = 1; dimension < shape.length; dimension++) bytes *= shape[dimension]!;
  return bytes;
}

/** `general.file_type` codes (llama.h `llama_ftype`) of the types we write. */
export const llamaFileTypes: Partial<Record<GgmlTypeName, number>> = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 7 };
