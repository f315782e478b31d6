// Parses a GGUF header (magic, version, key/values, tensor table) from a prefix of a file. Pure and
// synchronous; `readGgufFile` feeds it a longer prefix when it asks for more. Every rule below mirrors
// a check of llama.cpp's gguf.cpp, so a file we accept is a file llama.cpp accepts.
import { ByteCursor } from "./byte-cursor.js";
import { GgufInvalidHeaderError } from "./errors/gguf-invalid-header-error.js";
import { GgufInvalidMetadataError } from "./errors/gguf-invalid-metadata-error.js";
import { GgufInvalidTensorInfoError } from "./errors/gguf-invalid-tensor-info-error.js";
import { GgufTruncatedError } from "./errors/gguf-truncated-error.js";
import { ggmlTensorBytes, ggmlTypeName, ggmlTypes } from "./ggml-type.js";
import type { GgufFileInfo, GgufTensorInfo } from "./gguf-file-info.js";
import {
  type GgufArrayItem,
  type GgufMetadataEntry,
  type GgufValue,
  type GgufValueTypeName,
  ggufFixedValueSize,
  ggufValueTypeName,
} from "./gguf-value.js";

export const ggufMagic = 0x46554747; // "GGUF" read as a little-endian uint32
export const ggufDefaultAlignment = 32;
const maximumDimensions = 4;
const int64Maximum = (1n << 63n) - 1n;
// Smallest possible on-disk sizes, used to bound declared counts by the bytes left.
const minimumKeyValueBytes = 8 + 4 + 1;
const minimumTensorInfoBytes = 8 + 4 + 4 + 8;
const minimumStringBytes = 8;
const minimumArrayBytes = 4 + 8;

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(" ") || "(none)";
}

function readHeaderStart(cursor: ByteCursor): number {
  const magicBytes = cursor.peekBytes(4);
  if (cursor.fileSize < 4 || cursor.uint32("magic") !== ggufMagic) {
    throw new GgufInvalidHeaderError({
      offset: 0,
      bytesFound: hex(magicBytes),
      problem: 'the file does not start with the magic "GGUF"',
    });
  }
  const versionBytes = cursor.peekBytes(4);
  const version = cursor.uint32("version");
  const swapped =
    (((version & 0xff) << 24) | ((version & 0xff00) << 8) | ((version >>> 8) & 0xff00) | (version >>> 24)) >>>
    0;
  if (version !== 2 && version !== 3) {
    const problem =
      swapped === 2 || swapped === 3
        ? `the version is byte-swapped (a big-endian file, version ${swapped}), which is not supported`
        : `version ${version} is not supported (only 2 and 3 are; version 1 is obsolete, others are from the future)`;
    throw new GgufInvalidHeaderError({ offset: 4, bytesFound: hex(versionBytes), problem });
  }
  return version;
}

function readValueType(cursor: ByteCursor, key: string): GgufValueTypeName {
  const offset = cursor.offset;
  const code = cursor.uint32("key/value type");
  const type = ggufValueTypeName(code);
  if (type === undefined) {
    throw new GgufInvalidMetadataError({ offset, key, problem: `unknown value type ${code}` });
  }
  return type;
}

function readScalar(
  cursor: ByteCursor,
  type: GgufValueTypeName,
  key: string,
): number | bigint | boolean | string {
  const section = `value of "${key}"`;
  switch (type) {
    case "uint8":
      return cursor.uint8(section);
    case "int8":
      return cursor.int8(section);
    case "uint16":
      return cursor.uint16(section);
    case "int16":
      return cursor.int16(section);
    case "uint32":
      return cursor.uint32(section);
    case "int32":
      return cursor.int32(section);
    case "float32":
      return cursor.float32(section);
    case "float64":
      return cursor.float64(section);
    case "uint64":
      return cursor.uint64(section);
    case "int64":
      return cursor.int64(section);
    case "bool": {
      const offset = cursor.offset;
      const byte = cursor.uint8(section);
      if (byte > 1)
        throw new GgufInvalidMetadataError({ offset, key, problem: `bool byte is ${byte}, not 0 or 1` });
      return byte === 1;
    }
    case "string":
      return cursor.string(section);
    default:
      throw new Error(`unreachable: ${type} is not a scalar`);
  }
}

// Arrays of arrays are legal, but nothing real nests more than twice; a hostile file could nest a
// million levels in 12 MB and overflow the stack.
const maximumArrayNesting = 8;

function readArray(cursor: ByteCursor, key: string, depth = 1): GgufArrayItem {
  if (depth > maximumArrayNesting) {
    throw new GgufInvalidMetadataError({
      offset: cursor.offset,
      key,
      problem: `arrays nested more than ${maximumArrayNesting} deep`,
    });
  }
  const itemType = readValueType(cursor, key);
  const minimumItemBytes =
    ggufFixedValueSize(itemType) ?? (itemType === "string" ? minimumStringBytes : minimumArrayBytes);
  const length = cursor.count(`array length of "${key}"`, minimumItemBytes);
  // Grown by push, never preallocated from the header: `length` is already capped by the bytes left.
  const values: GgufArrayItem[] = [];
  for (let index = 0; index < length; index++) {
    values.push(itemType === "array" ? readArray(cursor, key, depth + 1) : readScalar(cursor, itemType, key));
  }
  return { type: "array", itemType, values };
}

function readValue(cursor: ByteCursor, key: string): GgufValue {
  const type = readValueType(cursor, key);
  if (type === "array") return readArray(cursor, key) as GgufValue;
  return { type, value: readScalar(cursor, type, key) } as GgufValue;
}

function readAlignment(metadataByKey: Map<string, GgufValue>, offsets: Map<string, number>): number {
  const value = metadataByKey.get("general.alignment");
  if (value === undefined) return ggufDefaultAlignment;
  const offset = offsets.get("general.alignment") ?? 0;
  if (value.type !== "uint32") {
    throw new GgufInvalidMetadataError({
      offset,
      key: "general.alignment",
      problem: `type is ${value.type}, not uint32`,
    });
  }
  const alignment = value.value;
  if (alignment === 0 || (alignment & (alignment - 1)) !== 0) {
    throw new GgufInvalidMetadataError({
      offset,
      key: "general.alignment",
      problem: `alignment ${alignment} is not a power of two`,
    });
  }
  return alignment;
}

interface RawTensorInfo {
  readonly offset: number;
  readonly name: string;
  readonly shape: readonly bigint[];
  readonly typeCode: number;
  readonly dataOffset: bigint;
}

function readTensorInfo(cursor: ByteCursor, names: Set<string>): RawTensorInfo {
  const offset = cursor.offset;
  const name = cursor.string("tensor name");
  if (names.has(name))
    throw new GgufInvalidTensorInfoError({ offset, tensorName: name, problem: "duplicate name" });
  names.add(name);
  const dimensionsOffset = cursor.offset;
  const dimensionCount = cursor.uint32("tensor dimension count");
  if (dimensionCount > maximumDimensions) {
    throw new GgufInvalidTensorInfoError({
      offset: dimensionsOffset,
      tensorName: name,
      problem: `${dimensionCount} dimensions, at most ${maximumDimensions} are allowed`,
    });
  }
  const shape: bigint[] = [];
  for (let dimension = 0; dimension < dimensionCount; dimension++) {
    const size = cursor.uint64("tensor shape");
    if (size > int64Maximum) {
      throw new GgufInvalidTensorInfoError({
        offset: cursor.offset - 8,
        tensorName: name,
        problem: `dimension ${dimension} is negative (${BigInt.asIntN(64, size)})`,
      });
    }
    shape.push(size);
  }
  const typeCode = cursor.uint32("tensor type");
  const dataOffset = cursor.uint64("tensor data offset");
  return { offset, name, shape, typeCode, dataOffset };
}

function checkTensor(
  raw: RawTensorInfo,
  alignment: number,
  dataStart: number,
  fileSize: number,
): GgufTensorInfo {
  const fail = (problem: string): never => {
    throw new GgufInvalidTensorInfoError({ offset: raw.offset, tensorName: raw.name, problem });
  };
  const type = ggmlTypeName(raw.typeCode) ?? fail(`unknown tensor type ${raw.typeCode}`);
  let elements = 1n;
  for (const size of raw.shape) {
    elements *= size;
    if (elements > int64Maximum) fail(`shape [${raw.shape.join(", ")}] has more than 2^63 elements`);
  }
  const byteSize =
    ggmlTensorBytes(type, raw.shape) ??
    fail(
      `row length ${raw.shape[0]} is not a multiple of the ${type} block size ${ggmlTypes[type].blockSize}`,
    );
  if (raw.dataOffset % BigInt(alignment) !== 0n)
    fail(`data offset ${raw.dataOffset} is not aligned to ${alignment}`);
  const start = BigInt(dataStart) + raw.dataOffset;
  if (start > BigInt(fileSize))
    fail(`data offset ${raw.dataOffset} lies past the end of the file (${fileSize} bytes)`);
  if (start + byteSize > BigInt(fileSize)) {
    throw new GgufTruncatedError({
      offset: Number(start),
      bytesNeeded: Number(byteSize),
      fileSize,
      section: `data of tensor "${raw.name}"`,
    });
  }
  return {
    name: raw.name,
    shape: raw.shape.map(Number),
    type,
    relativeOffset: Number(raw.dataOffset),
    fileOffset: Number(start),
    byteSize: Number(byteSize),
    elementCount: Number(elements),
  };
}

function checkNoOverlap(tensors: readonly GgufTensorInfo[], offsets: ReadonlyMap<string, number>): void {
  const sorted = [...tensors].sort((left, right) => left.fileOffset - right.fileOffset);
  for (let index = 1; index < sorted.length; index++) {
    const previous = sorted[index - 1]!;
    const current = sorted[index]!;
    if (previous.fileOffset + previous.byteSize > current.fileOffset) {
      throw new GgufInvalidTensorInfoError({
        offset: offsets.get(current.name) ?? 0,
        tensorName: current.name,
        problem: `its data overlaps the data of "${previous.name}"`,
      });
    }
  }
}

/** Parses the header from `bytes`, a prefix of a file of `fileSize` bytes (may throw NeedMoreBytesSignal). */
export function parseGgufHeader(bytes: Uint8Array, fileSize: number): GgufFileInfo {
  const cursor = new ByteCursor(bytes, fileSize);
  const version = readHeaderStart(cursor);
  const tensorCount = cursor.count("tensor count", minimumTensorInfoBytes);
  const keyValueCount = cursor.count("key/value count", minimumKeyValueBytes);
  const metadata: GgufMetadataEntry[] = [];
  const metadataByKey = new Map<string, GgufValue>();
  const keyOffsets = new Map<string, number>();
  for (let index = 0; index < keyValueCount; index++) {
    const offset = cursor.offset;
    const key = cursor.string("key");
    if (metadataByKey.has(key)) throw new GgufInvalidMetadataError({ offset, key, problem: "duplicate key" });
    const value = readValue(cursor, key);
    metadata.push({ key, value });
    metadataByKey.set(key, value);
    keyOffsets.set(key, offset);
  }
  const alignment = readAlignment(metadataByKey, keyOffsets);
  const names = new Set<string>();
  const rawTensors: RawTensorInfo[] = [];
  for (let index = 0; index < tensorCount; index++) rawTensors.push(readTensorInfo(cursor, names));
  const tensorDataOffset = Math.ceil(cursor.offset / alignment) * alignment;
  if (rawTensors.length > 0 && tensorDataOffset > fileSize) {
    throw new GgufTruncatedError({
      offset: cursor.offset,
      bytesNeeded: tensorDataOffset - cursor.offset,
      fileSize,
      section: "padding before the tensor data",
    });
  }
  const tensors = rawTensors.map((raw) => checkTensor(raw, alignment, tensorDataOffset, fileSize));
  checkNoOverlap(tensors, new Map(rawTensors.map((raw) => [raw.name, raw.offset])));
  return { version, fileSize, alignment, tensorDataOffset, metadata, metadataByKey, tensors };
}
