import type { GgmlTypeName } from "./ggml-type.js";
import type { GgufMetadataEntry, GgufValue } from "./gguf-value.js";

export interface GgufTensorInfo {
  readonly name: string;
  /** ggml order: shape[0] is the row length (the fastest-moving dimension). */
  readonly shape: readonly number[];
  readonly type: GgmlTypeName;
  /** Offset of the data from the start of the tensor-data section, as stored in the file. */
  readonly relativeOffset: number;
  /** Offset of the data from the start of the file. */
  readonly fileOffset: number;
  readonly byteSize: number;
  readonly elementCount: number;
}

export interface GgufFileInfo {
  readonly version: number;
  readonly fileSize: number;
  readonly alignment: number;
  /** Where the tensor-data section starts (after the header and its padding). */
  readonly tensorDataOffset: number;
  readonly metadata: readonly GgufMetadataEntry[];
  readonly metadataByKey: ReadonlyMap<string, GgufValue>;
  readonly tensors: readonly GgufTensorInfo[];
}
