// Streams a GGUF file to disk: the header first, then each tensor's data as its producer yields it,
// padded to the alignment. Memory stays at two 8 MiB batches whatever the model size (an 8B F16 model
// is 16 GB). Writes overlap with producing the next batch.
import { type FileHandle, open, rm } from "node:fs/promises";
import { GgufWriteError } from "./errors/gguf-write-error.js";
import { encodeGgufHeader, type GgufTensorDescription } from "./gguf-header-encoder.js";
import type { GgufMetadataEntry } from "./gguf-value.js";

export interface GgufTensorSource extends GgufTensorDescription {
  /**
   * Yields the tensor's bytes in order; they must add up to its exact size. A yielded chunk is copied
   * before the next one is requested, so a producer may reuse one buffer.
   */
  readonly data: () => AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

export interface GgufWriteProgress {
  readonly bytesWritten: number;
  readonly totalBytes: number;
}

export interface GgufWriteOptions {
  readonly metadata: readonly GgufMetadataEntry[];
  readonly tensors: readonly GgufTensorSource[];
  readonly onProgress?: (progress: GgufWriteProgress) => void;
  readonly signal?: AbortSignal;
}

const batchBytes = 8 << 20;

// A write may take fewer bytes than offered (rare for files, but allowed): keep going until all are down.
async function writeFully(handle: FileHandle, bytes: Uint8Array, length: number): Promise<void> {
  let offset = 0;
  while (offset < length) {
    const { bytesWritten } = await handle.write(bytes, offset, length - offset);
    offset += bytesWritten;
  }
}

export async function writeGgufFile(path: string, options: GgufWriteOptions): Promise<GgufWriteProgress> {
  options.signal?.throwIfAborted();
  const layout = encodeGgufHeader(options.metadata, options.tensors);
  const handle = await open(path, "w");
  const batches = [new Uint8Array(batchBytes), new Uint8Array(batchBytes)];
  let batchIndex = 0;
  let filled = 0;
  let bytesWritten = 0;
  let pendingWrite: Promise<unknown> = Promise.resolve();

  const flush = async (): Promise<void> => {
    if (filled === 0) return;
    await pendingWrite; // the other batch must be on disk before we refill it next round
    const batch = batches[batchIndex]!;
    const length = filled;
    pendingWrite = writeFully(handle, batch, length).then(() => {
      bytesWritten += length;
      options.onProgress?.({ bytesWritten, totalBytes: layout.totalBytes });
    });
    batchIndex = 1 - batchIndex;
    filled = 0;
  };

  const append = async (bytes: Uint8Array): Promise<void> => {
    let consumed = 0;
    while (consumed < bytes.length) {
      const take = Math.min(bytes.length - consumed, batchBytes - filled);
      batches[batchIndex]!.set(bytes.subarray(consumed, consumed + take), filled);
      filled += take;
      consumed += take;
      if (filled === batchBytes) await flush();
    }
  };

  try {
    await append(layout.header);
    let position = 0;
    for (const [index, tensor] of options.tensors.entries()) {
      const expected = layout.tensorByteSizes[index]!;
      const padding = layout.tensorOffsets[index]! - position;
      if (padding > 0) await append(new Uint8Array(padding));
      let produced = 0;
      for await (const chunk of tensor.data()) {
        options.signal?.throwIfAborted();
        produced += chunk.length;
        if (produced > expected) break;
        await append(chunk);
      }
      if (produced !== expected) {
        throw new GgufWriteError(
          `tensor "${tensor.name}" produced ${produced} bytes, its shape needs ${expected}`,
        );
      }
      position = layout.tensorOffsets[index]! + expected;
    }
    const trailing = layout.totalBytes - layout.header.length - position;
    if (trailing > 0) await append(new Uint8Array(trailing));
    await flush();
    await pendingWrite;
    return { bytesWritten, totalBytes: layout.totalBytes };
  } catch (error) {
    // A partial model is worse than none: remove it so nobody loads it later.
    await pendingWrite.catch(() => undefined);
    await handle.close();
    await rm(path, { force: true });
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
