// GGUF key/value types. Values keep their wire type so a file can be read and written back unchanged:
// a JavaScript number alone cannot say whether it was a uint32 or a float32.

/** Wire codes of GGUF value types (gguf.h `gguf_type`). */
export const ggufValueTypeCodes = {
  uint8: 0,
  int8: 1,
  uint16: 2,
  int16: 3,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
  uint64: 10,
  int64: 11,
  float64: 12,
} as const;

export type GgufValueTypeName = keyof typeof ggufValueTypeCodes;
export type GgufNumberTypeName =
  | "uint8"
  | "int8"
  | "uint16"
  | "int16"
  | "uint32"
  | "int32"
  | "float32"
  | "float64";
export type GgufBigIntTypeName = "uint64" | "int64";

const namesByCode = new Map<number, GgufValueTypeName>(
  Object.entries(ggufValueTypeCodes).map(([name, code]) => [code, name as GgufValueTypeName]),
);

export function ggufValueTypeName(code: number): GgufValueTypeName | undefined {
  return namesByCode.get(code);
}

/** Byte size of a fixed-size value type; undefined for string and array. */
export function ggufFixedValueSize(type: GgufValueTypeName): number | undefined {
  switch (type) {
    case "uint8":
    case "int8":
    case "bool":
      return 1;
    case "uint16":
    case "int16":
      return 2;
    case "uint32":
    case "int32":
    case "float32":
      return 4;
    case "uint64":
    case "int64":
    case "float64":
      return 8;
    default:
      return undefined;
  }
}

/** An array's items as plain values; nested arrays are themselves `GgufArrayValue`s. */
export type GgufArrayItem = number | bigint | boolean | string | GgufArrayValue;

export interface GgufArrayValue {
  readonly type: "array";
  readonly itemType: GgufValueTypeName;
  readonly values: readonly GgufArrayItem[];
}

export type GgufValue =
  | { readonly type: GgufNumberTypeName; readonly value: number }
  | { readonly type: GgufBigIntTypeName; readonly value: bigint }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "string"; readonly value: string }
  | GgufArrayValue;

export interface GgufMetadataEntry {
  readonly key: string;
  readonly value: GgufValue;
}

/** Plain JavaScript form of a value (arrays become JS arrays), for display and comparisons. */
export function ggufPlainValue(value: GgufValue | GgufArrayItem): unknown {
  if (typeof value !== "object") return value;
  if (value.type === "array") return value.values.map((item) => ggufPlainValue(item));
  return value.value;
}

// Small constructors so metadata reads like a table.
export const gguf = {
  uint32: (value: number): GgufValue => ({ type: "uint32", value }),
  int32: (value: number): GgufValue => ({ type: "int32", value }),
  float32: (value: number): GgufValue => ({ type: "float32", value }),
  uint64: (value: bigint): GgufValue => ({ type: "uint64", value }),
  bool: (value: boolean): GgufValue => ({ type: "bool", value }),
  string: (value: string): GgufValue => ({ type: "string", value }),
  array: (itemType: GgufValueTypeName, values: readonly GgufArrayItem[]): GgufValue => ({
    type: "array",
    itemType,
    values,
  }),
};
