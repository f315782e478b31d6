// Reads a GGUF file's header from disk. Only the header is loaded, a prefix at a time: it starts at
// 16 MiB (one read and one parse for a 128k-token vocabulary, whose header is ~8 MB; re-parsing after each
// growth cost more than the read) and grows only when the parser actually reaches further, so memory follows the real header size
// and never a length written in the file.
import { open } from "node:fs/promises";
import { NeedMoreBytesSignal } from "./byte-cursor.js";
import { GgufHeaderTooLargeError } from "./errors/gguf-header-too-large-error.js";
import type { GgufFileInfo, GgufTensorInfo } from "./gguf-file-info.js";
import { parseGgufHeader } from "./gguf-header-parser.js";

const initialPrefixBytes = 16 << 20;
export const defaultMaxHeaderBytes = 256 << 20;

export interface ReadGgufOptions {
  /** Largest header (everything before the tensor data) to load; default 256 MiB. */
  readonly maxHeaderBytes?: number;
}

export async function readGgufFile(path: string, options: ReadGgufOptions = {}): Promise<GgufFileInfo> {
  const maxHeaderBytes = options.maxHeaderBytes ?? defaultMaxHeaderBytes;
  const handle = await open(path, "r");
  try {
    const { size: fileSize } = await handle.stat();
    let prefixLength = Math.min(fileSize, initialPrefixBytes, maxHeaderBytes);
    for (;;) {
      const prefix = new Uint8Array(prefixLength);
      const { bytesRead } = await handle.read(prefix, 0, prefixLength, 0);
      try {
        // A file that shrank while we read it is judged by what is really there.
        return parseGgufHeader(
          prefix.subarray(0, bytesRead),
          bytesRead < prefixLength ? bytesRead : fileSize,
        );
      } catch (error) {
        if (!(error instanceof NeedMoreBytesSignal)) throw error;
        if (error.bytesNeeded > maxHeaderBytes) {
          throw new GgufHeaderTooLargeError({ limit: maxHeaderBytes, offset: prefixLength });
        }
        prefixLength = Math.min(
          fileSize,
          maxHeaderBytes,
          // Every retry parses the header again from the start, so grow fast: a 128k-token vocabulary
          // (an 8 MB header) then costs two parses, not four.
          Math.max(prefixLength * 4, error.bytesNeeded * 2),
        );
      }
    }
  } finally {
    await handle.close();
  }
}

/** Parses a GGUF file held whole in memory (a header-only file counts as whole). */
export function parseGgufBytes(bytes: Uint8Array): GgufFileInfo {
  return parseGgufHeader(bytes, bytes.byteLength);
}

/** Reads the raw bytes of one tensor (for tests and inspection; sizes were bounded by the reader). */
export async function readGgufTensorBytes(path: string, tensor: GgufTensorInfo): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const bytes = new Uint8Array(tensor.byteSize);
    await handle.read(bytes, 0, tensor.byteSize, tensor.fileOffset);
    return bytes;
  } finally {
    await handle.close();
  }
}
