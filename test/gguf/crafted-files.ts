// Helpers that write real (often deliberately broken) GGUF files into a temporary folder.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ByteSink } from "../../src/gguf/byte-sink.js";

export interface ScratchFolder {
  readonly path: string;
  file(name: string, bytes: Uint8Array): string;
  remove(): void;
}

export function scratchFolder(): ScratchFolder {
  const path = mkdtempSync(join(tmpdir(), "tessera-gguf-"));
  return {
    path,
    file(name, bytes) {
      const file = join(path, name.replace(/[^a-zA-Z0-9.-]+/g, "_"));
      writeFileSync(file, bytes);
      return file;
    },
    remove() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

export interface CraftedHeader {
  magic?: number;
  version?: number;
  tensorCount: bigint;
  keyValueCount: bigint;
}

/** Bytes of a header start followed by whatever `body` writes, padded with zeros to `minimumLength`. */
export function craft(
  header: CraftedHeader,
  body: (sink: ByteSink) => void = () => {},
  minimumLength = 0,
): Uint8Array {
  const sink = new ByteSink();
  sink.uint32(header.magic ?? 0x46554747);
  sink.uint32(header.version ?? 3);
  sink.uint64(header.tensorCount);
  sink.uint64(header.keyValueCount);
  body(sink);
  while (sink.length < minimumLength) sink.uint8(0);
  return sink.toBytes();
}

export const valueType = { uint32: 4, string: 8, array: 9, bool: 7 } as const;

/** A tensor-table entry with arbitrary (possibly lying) fields. */
export function tensorEntry(
  sink: ByteSink,
  name: string,
  shape: readonly bigint[],
  typeCode: number,
  offset: bigint,
): void {
  sink.string(name);
  sink.uint32(shape.length);
  for (const size of shape) sink.uint64(size);
  sink.uint32(typeCode);
  sink.uint64(offset);
}

/** Open file descriptors of this process (Linux), to prove a failed read closed its file. */
export function openFileCount(): number {
  return readdirSync("/proc/self/fd").length;
}
