// Encodes a GGUF v3 header (key/values and tensor table, padded to the alignment) and lays out where
// each tensor's data will go, so the writer can stream the data afterwards without looking back.
import { ByteSink } from "./byte-sink.js";
import { GgufWriteError } from "./errors/gguf-write-error.js";
import { type GgmlTypeName, ggmlRowBytes, ggmlTypes } from "./ggml-type.js";
import { ggufDefaultAlignment, ggufMagic } from "./gguf-header-parser.js";
import {
  type GgufArrayItem,
  type GgufMetadataEntry,
  type GgufValue,
  type GgufValueTypeName,
  ggufValueTypeCodes,
} from "./gguf-value.js";

export interface GgufTensorDescription {
  readonly name: string;
  /** ggml order: shape[0] is the row length. */
  readonly shape: readonly number[];
  readonly type: GgmlTypeName;
}

export interface GgufLayout {
  /** Header bytes including the padding up to the first tensor. */
  readonly header: Uint8Array;
  readonly alignment: number;
  /** Size of each tensor's data, in the order given. */
  readonly tensorByteSizes: readonly number[];
  /** Offset of each tensor's data relative to the end of the header. */
  readonly tensorOffsets: readonly number[];
  readonly totalBytes: number;
}

const integerRanges: Partial<Record<GgufValueTypeName, readonly [number, number]>> = {
  uint8: [0, 0xff],
  int8: [-0x80, 0x7f],
  uint16: [0, 0xffff],
  int16: [-0x8000, 0x7fff],
  uint32: [0, 0xffffffff],
  int32: [-0x80000000, 0x7fffffff],
};

function writeScalar(sink: ByteSink, type: GgufValueTypeName, value: GgufArrayItem, key: string): void {
  const range = integerRanges[type];
  if (
    range !== undefined &&
    (typeof value !== "number" || !Number.isInteger(value) || value < range[0] || value > range[1])
  ) {
    throw new GgufWriteError(`value ${String(value)} of "${key}" is not a ${type}`);
  }
  const expect = (kind: string): never => {
    throw new GgufWriteError(`value ${String(value)} of "${key}" is not a ${kind}`);
  };
  switch (type) {
    case "uint8":
      sink.uint8(value as number);
      return;
    case "int8":
      sink.int8(value as number);
      return;
    case "uint16":
      sink.uint16(value as number);
      return;
    case "int16":
      sink.int16(value as number);
      return;
    case "uint32":
      sink.uint32(value as number);
      return;
    case "int32":
      sink.int32(value as number);
      return;
    case "float32":
      sink.float32(typeof value === "number" ? value : expect("number"));
      return;
    case "float64":
      sink.float64(typeof value === "number" ? value : expect("number"));
      return;
    case "uint64":
      sink.uint64(typeof value === "bigint" && value >= 0n ? value : expect("uint64 bigint"));
      return;
    case "int64":
      sink.int64(typeof value === "bigint" ? value : expect("int64 bigint"));
      return;
    case "bool":
      sink.uint8(typeof value === "boolean" ? Number(value) : expect("boolean"));
      return;
    case "string":
      sink.string(typeof value === "string" ? value : expect("string"));
      return;
    case "array": {
      const array = typeof value === "object" ? value : expect("array");
      sink.uint32(ggufValueTypeCodes[array.itemType]);
      sink.uint64(BigInt(array.values.length));
      for (const item of array.values) writeScalar(sink, array.itemType, item, key);
    }
  }
}

function writeValue(sink: ByteSink, value: GgufValue, key: string): void {
  // Untyped JavaScript callers can pass a bare value; without a wire type it would be written as an
  // undefined type code, a file that no reader can parse.
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !Object.hasOwn(ggufValueTypeCodes, type)) {
    const shown = JSON.stringify(value) ?? String(value);
    throw new GgufWriteError(
      `the value of "${key}" is ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}, not a typed GGUF value; wrap it with gguf.string(), gguf.uint32(), gguf.array() and so on`,
    );
  }
  sink.uint32(ggufValueTypeCodes[value.type]);
  writeScalar(sink, value.type, value.type === "array" ? value : value.value, key);
}

function alignmentOf(metadata: readonly GgufMetadataEntry[]): number {
  const entry = metadata.find((candidate) => candidate.key === "general.alignment");
  if (entry === undefined) return ggufDefaultAlignment;
  const alignment = entry.value.type === "uint32" ? entry.value.value : 0;
  if (alignment === 0 || (alignment & (alignment - 1)) !== 0) {
    throw new GgufWriteError("general.alignment must be a uint32 power of two");
  }
  return alignment;
}

function tensorByteSize(tensor: GgufTensorDescription): number {
  if (tensor.shape.length < 1 || tensor.shape.length > 4) {
    throw new GgufWriteError(
      `tensor "${tensor.name}" has ${tensor.shape.length} dimensions (1 to 4 allowed)`,
    );
  }
  const rowBytes = ggmlRowBytes(tensor.type, tensor.shape[0]!);
  if (rowBytes === undefined) {
    throw new GgufWriteError(
      `row length ${tensor.shape[0]} of "${tensor.name}" is not a multiple of the ${tensor.type} block size ${ggmlTypes[tensor.type].blockSize}`,
    );
  }
  return tensor.shape.slice(1).reduce((bytes, size) => bytes * size, rowBytes);
}

export function encodeGgufHeader(
  metadata: readonly GgufMetadataEntry[],
  tensors: readonly GgufTensorDescription[],
): GgufLayout {
  const alignment = alignmentOf(metadata);
  const keys = new Set<string>();
  const names = new Set<string>();
  const sink = new ByteSink();
  sink.uint32(ggufMagic);
  sink.uint32(3);
  sink.uint64(BigInt(tensors.length));
  sink.uint64(BigInt(metadata.length));
  for (const { key, value } of metadata) {
    if (keys.has(key)) throw new GgufWriteError(`duplicate key "${key}"`);
    keys.add(key);
    sink.string(key);
    writeValue(sink, value, key);
  }
  const tensorByteSizes: number[] = [];
  const tensorOffsets: number[] = [];
  let dataLength = 0;
  for (const tensor of tensors) {
    if (names.has(tensor.name)) throw new GgufWriteError(`duplicate tensor name "${tensor.name}"`);
    names.add(tensor.name);
    const byteSize = tensorByteSize(tensor);
    sink.string(tensor.name);
    sink.uint32(tensor.shape.length);
    for (const size of tensor.shape) sink.uint64(BigInt(size));
    sink.uint32(ggmlTypes[tensor.type].code);
    sink.uint64(BigInt(dataLength));
    tensorOffsets.push(dataLength);
    tensorByteSizes.push(byteSize);
    dataLength = Math.ceil((dataLength + byteSize) / alignment) * alignment;
  }
  sink.padTo(alignment);
  const header = sink.toBytes();
  return { header, alignment, tensorByteSizes, tensorOffsets, totalBytes: header.length + dataLength };
}
