// Where every field of a valid GGUF file lies: the mutators need byte positions (to set a count, a
// length or a tensor offset to an extreme, or to cut the file inside a given section), which the
// reader does not keep. Only ever run on seed files that our reader accepted.
import type { GgufFileInfo } from "../gguf/gguf-file-info.js";

export type GgufFieldKind =
  | "magic"
  | "version"
  | "tensor-count"
  | "key-value-count"
  | "key-length"
  | "value-type"
  | "string-length"
  | "array-item-type"
  | "array-length"
  | "scalar"
  | "tensor-name-length"
  | "tensor-dimension-count"
  | "tensor-dimension"
  | "tensor-type"
  | "tensor-offset";

export interface GgufField {
  readonly kind: GgufFieldKind;
  readonly offset: number;
  /** 1, 2, 4 or 8 bytes, little-endian. */
  readonly size: number;
  /** The key or tensor the field belongs to. */
  readonly owner: string;
}

export interface GgufSection {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

export interface GgufLayoutMap {
  readonly fields: readonly GgufField[];
  readonly sections: readonly GgufSection[];
}

const scalarSizes: Readonly<Record<number, number>> = {
  0: 1,
  1: 1,
  2: 2,
  3: 2,
  4: 4,
  5: 4,
  6: 4,
  7: 1,
  10: 8,
  11: 8,
  12: 8,
};
const stringType = 8;
const arrayType = 9;
// Long arrays (a 128k vocabulary) would give hundreds of thousands of fields; a sample is enough.
const arrayItemFieldsKept = 12;

/** Maps a GGUF file that our reader accepted (`info` is what it read). */
export function mapGgufLayout(bytes: Uint8Array, info: GgufFileInfo): GgufLayoutMap {
  const { alignment, tensorDataOffset } = info;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fields: GgufField[] = [];
  const sections: GgufSection[] = [];
  let offset = 0;
  const field = (kind: GgufFieldKind, size: number, owner: string): number => {
    fields.push({ kind, offset, size, owner });
    const value =
      size === 8 ? Number(view.getBigUint64(offset, true)) : size === 4 ? view.getUint32(offset, true) : 0;
    offset += size;
    return value;
  };
  const string = (kind: GgufFieldKind, owner: string, keepField = true): string => {
    const length = Number(view.getBigUint64(offset, true));
    if (keepField) fields.push({ kind, offset, size: 8, owner });
    offset += 8;
    const text = new TextDecoder().decode(bytes.subarray(offset, offset + length));
    offset += length;
    return text;
  };
  const value = (type: number, owner: string, keepFields: boolean): void => {
    if (type === stringType) {
      string("string-length", owner, keepFields);
    } else if (type === arrayType) {
      const itemType = view.getUint32(offset, true);
      if (keepFields) fields.push({ kind: "array-item-type", offset, size: 4, owner });
      offset += 4;
      const length = Number(view.getBigUint64(offset, true));
      if (keepFields) fields.push({ kind: "array-length", offset, size: 8, owner });
      offset += 8;
      const stride = Math.max(1, Math.floor(length / arrayItemFieldsKept));
      for (let index = 0; index < length; index++) value(itemType, owner, keepFields && index % stride === 0);
    } else {
      const size = scalarSizes[type] ?? 0;
      if (keepFields) fields.push({ kind: "scalar", offset, size, owner });
      offset += size;
    }
  };

  field("magic", 4, "header");
  field("version", 4, "header");
  sections.push({ name: "magic and version", start: 0, end: 8 });
  const tensorCount = field("tensor-count", 8, "header");
  const keyValueCount = field("key-value-count", 8, "header");
  sections.push({ name: "counts", start: 8, end: 24 });
  for (let index = 0; index < keyValueCount; index++) {
    const start = offset;
    const key = string("key-length", `key ${index}`);
    const valueStart = offset;
    const type = field("value-type", 4, key);
    value(type, key, true);
    sections.push({ name: `key of "${key}"`, start, end: valueStart });
    sections.push({ name: `value of "${key}"`, start: valueStart, end: offset });
  }
  const tensorTableStart = offset;
  const tensorNames: string[] = [];
  for (let index = 0; index < tensorCount; index++) {
    const start = offset;
    const name = string("tensor-name-length", `tensor ${index}`);
    tensorNames.push(name);
    const dimensions = field("tensor-dimension-count", 4, name);
    for (let dimension = 0; dimension < dimensions; dimension++) field("tensor-dimension", 8, name);
    field("tensor-type", 4, name);
    field("tensor-offset", 8, name);
    sections.push({ name: `tensor info of "${name}"`, start, end: offset });
  }
  if (tensorCount > 0) {
    sections.push({ name: "tensor table", start: tensorTableStart, end: offset });
    const paddedEnd = Math.ceil(offset / alignment) * alignment;
    if (paddedEnd > offset) sections.push({ name: "padding", start: offset, end: paddedEnd });
    sections.push({ name: "tensor data", start: tensorDataOffset, end: bytes.byteLength });
    for (const tensor of info.tensors) {
      const end = tensor.fileOffset + tensor.byteSize;
      sections.push({ name: `data of "${tensor.name}"`, start: tensor.fileOffset, end });
    }
  }
  return { fields, sections };
}
