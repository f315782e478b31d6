import { copyFileSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ByteSink } from "../../src/gguf/byte-sink.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { GgufError } from "../../src/gguf/errors/gguf-error.js";
import { GgufHeaderTooLargeError } from "../../src/gguf/errors/gguf-header-too-large-error.js";
import { GgufInvalidHeaderError } from "../../src/gguf/errors/gguf-invalid-header-error.js";
import { GgufInvalidMetadataError } from "../../src/gguf/errors/gguf-invalid-metadata-error.js";
import { GgufInvalidTensorInfoError } from "../../src/gguf/errors/gguf-invalid-tensor-info-error.js";
import { GgufLengthExceedsFileError } from "../../src/gguf/errors/gguf-length-exceeds-file-error.js";
import { GgufTruncatedError } from "../../src/gguf/errors/gguf-truncated-error.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { craft, openFileCount, scratchFolder, tensorEntry, valueType } from "./crafted-files.js";

const scratch = scratchFolder();
afterAll(() => scratch.remove());

async function rejection(path: string): Promise<unknown> {
  const filesBefore = openFileCount();
  const error = await readGgufFile(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(openFileCount(), "the file must be closed after a failed read").toBe(filesBefore);
  expect(GgufError.isInstance(error), `expected a GgufError, got ${String(error)}`).toBe(true);
  return error;
}

const twoTo63 = 1n << 63n;

describe("reading a truncated GGUF (case 1)", async () => {
  const model = await resolveDefaultModel();
  const size = statSync(model).size;
  const info = await readGgufFile(model);
  const cuts = {
    "the header": 6,
    "the key/values": 200,
    "the token array": 300_000,
    "the tensor table": info.tensorDataOffset - 40,
    "the tensor data": size - 100,
  };
  for (const [section, cut] of Object.entries(cuts)) {
    it(`rejects a file cut in ${section} with the byte offset`, async () => {
      const path = join(scratch.path, `cut-${cut}.gguf`);
      copyFileSync(model, path);
      truncateSync(path, cut);
      const error = await rejection(path);
      expect(GgufTruncatedError.isInstance(error)).toBe(true);
      const truncated = error as GgufTruncatedError;
      expect(truncated.fileSize).toBe(cut);
      // A cut inside a string or array shows as a declared length the rest of the file cannot hold.
      expect(truncated.offset).toBeLessThanOrEqual(cut);
      expect(truncated.offset + truncated.bytesNeeded).toBeGreaterThan(cut);
      expect(truncated.message).toContain(`byte offset ${truncated.offset}`);
    });
  }
});

describe("reading a file that is not GGUF v2/v3 (case 2)", () => {
  const cases: [string, Uint8Array, string][] = [
    ["an empty file", new Uint8Array(0), "(none)"],
    ["the magic GGML", craft({ magic: 0x4c4d4747, tensorCount: 0n, keyValueCount: 0n }), "47 47 4d 4c"],
    ["version 0", craft({ version: 0, tensorCount: 0n, keyValueCount: 0n }), "00 00 00 00"],
    ["version 1", craft({ version: 1, tensorCount: 0n, keyValueCount: 0n }), "01 00 00 00"],
    ["version 4 from the future", craft({ version: 4, tensorCount: 0n, keyValueCount: 0n }), "04 00 00 00"],
    [
      "a byte-swapped version 3",
      craft({ version: 0x03000000, tensorCount: 0n, keyValueCount: 0n }),
      "00 00 00 03",
    ],
  ];
  for (const [name, bytes, found] of cases) {
    it(`rejects ${name}, showing the bytes found`, async () => {
      const error = await rejection(scratch.file(`${name}.gguf`, bytes));
      expect(GgufInvalidHeaderError.isInstance(error)).toBe(true);
      expect((error as GgufInvalidHeaderError).bytesFound).toBe(found);
      expect((error as Error).message).toContain(found);
    });
  }

  it("says when a file is byte-swapped", async () => {
    const error = await rejection(
      scratch.file("swapped.gguf", craft({ version: 0x02000000, tensorCount: 0n, keyValueCount: 0n })),
    );
    expect((error as Error).message).toContain("byte-swapped");
  });

  it("accepts version 2 as well as 3", async () => {
    const info = await readGgufFile(
      scratch.file("v2.gguf", craft({ version: 2, tensorCount: 0n, keyValueCount: 0n })),
    );
    expect(info.version).toBe(2);
  });
});

describe("reading allocation bombs (case 3)", () => {
  const bombs: [string, Uint8Array, string][] = [
    ["2^63 tensors", craft({ tensorCount: twoTo63, keyValueCount: 0n }, undefined, 200), "tensor count"],
    [
      "2^63 key/values",
      craft({ tensorCount: 0n, keyValueCount: twoTo63 }, undefined, 200),
      "key/value count",
    ],
    [
      "a 1 GiB key",
      craft({ tensorCount: 0n, keyValueCount: 1n }, (sink) => sink.uint64(1n << 30n), 200),
      "key length",
    ],
    [
      "a 1 GiB string value",
      craft(
        { tensorCount: 0n, keyValueCount: 1n },
        (sink) => {
          sink.string("general.name");
          sink.uint32(valueType.string);
          sink.uint64(1n << 30n);
        },
        200,
      ),
      'value of "general.name" length',
    ],
    [
      "an array of 2^40 uint32",
      craft(
        { tensorCount: 0n, keyValueCount: 1n },
        (sink) => {
          sink.string("tokenizer.ggml.token_type");
          sink.uint32(valueType.array);
          sink.uint32(valueType.uint32);
          sink.uint64(1n << 40n);
        },
        200,
      ),
      "array length",
    ],
    [
      "an array of 2^60 strings",
      craft(
        { tensorCount: 0n, keyValueCount: 1n },
        (sink) => {
          sink.string("tokenizer.ggml.tokens");
          sink.uint32(valueType.array);
          sink.uint32(valueType.string);
          sink.uint64(1n << 60n);
        },
        200,
      ),
      "array length",
    ],
    [
      "a 2^62-byte tensor name",
      craft({ tensorCount: 1n, keyValueCount: 0n }, (sink) => sink.uint64(1n << 62n), 200),
      "tensor name length",
    ],
  ];
  for (const [name, bytes, field] of bombs) {
    it(`rejects a ${bytes.length}-byte file declaring ${name} without allocating it`, async () => {
      const path = scratch.file(`${name}.gguf`, bytes);
      const heapBefore = process.memoryUsage().heapUsed;
      const error = await rejection(path);
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
      expect(GgufLengthExceedsFileError.isInstance(error)).toBe(true);
      expect((error as GgufLengthExceedsFileError).field).toContain(field);
      expect((error as GgufLengthExceedsFileError).bytesLeft).toBeLessThan(200);
      expect(heapGrowth).toBeLessThan(16 << 20);
    });
  }
});

function singleTensorFile(
  shape: readonly bigint[],
  typeCode: number,
  offset: bigint,
  dataBytes = 256,
): Uint8Array {
  return craft({ tensorCount: 1n, keyValueCount: 0n }, (sink) => {
    tensorEntry(sink, "t", shape, typeCode, offset);
    sink.padTo(32);
    for (let index = 0; index < dataBytes; index++) sink.uint8(0);
  });
}

describe("reading a header larger than the limit", () => {
  it("stops loading at maxHeaderBytes instead of following the file", async () => {
    const bytes = craft({ tensorCount: 0n, keyValueCount: 1n }, (sink) => {
      sink.string("general.big");
      sink.uint32(valueType.string);
      sink.string("x".repeat(3 << 20));
    });
    const path = scratch.file("big-header.gguf", bytes);
    const error = await readGgufFile(path, { maxHeaderBytes: 2 << 20 }).catch((caught: unknown) => caught);
    expect(GgufHeaderTooLargeError.isInstance(error)).toBe(true);
    expect((await readGgufFile(path)).metadata[0]!.key).toBe("general.big");
  });
});

describe("reading lying tensor info (case 4)", () => {
  const lies: [string, Uint8Array, string][] = [
    ["5 dimensions", singleTensorFile([1n, 1n, 1n, 1n, 1n], 0, 0n), "5 dimensions"],
    ["a negative dimension", singleTensorFile([4n, (1n << 64n) - 1n], 0, 0n), "negative"],
    ["an overflowing element count", singleTensorFile([1n << 30n, 1n << 30n, 1n << 30n], 0, 0n), "2^63"],
    ["an unknown type", singleTensorFile([4n], 99, 0n), "unknown tensor type 99"],
    ["a misaligned offset", singleTensorFile([4n], 0, 8n), "not aligned"],
    ["an offset past the end", singleTensorFile([4n], 0, 1n << 40n), "past the end"],
    ["a row that is not whole blocks", singleTensorFile([33n], 2, 0n), "block size"],
    [
      "duplicate names",
      craft({ tensorCount: 2n, keyValueCount: 0n }, (sink) => {
        tensorEntry(sink, "twice", [4n], 0, 0n);
        tensorEntry(sink, "twice", [4n], 0, 32n);
        sink.padTo(32);
        for (let index = 0; index < 64; index++) sink.uint8(0);
      }),
      "duplicate",
    ],
    [
      "overlapping data",
      craft({ tensorCount: 2n, keyValueCount: 0n }, (sink) => {
        tensorEntry(sink, "first", [16n], 0, 0n);
        tensorEntry(sink, "second", [16n], 0, 32n);
        sink.padTo(32);
        for (let index = 0; index < 128; index++) sink.uint8(0);
      }),
      "overlaps",
    ],
  ];
  for (const [name, bytes, phrase] of lies) {
    it(`rejects ${name}`, async () => {
      const error = await rejection(scratch.file(`${name}.gguf`, bytes));
      expect(GgufInvalidTensorInfoError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(phrase);
      expect((error as GgufInvalidTensorInfoError).offset).toBeGreaterThanOrEqual(24);
    });
  }

  it("rejects a 1 TiB tensor in a small file as truncated data, reading nothing past the end", async () => {
    const error = await rejection(scratch.file("huge.gguf", singleTensorFile([1n << 38n], 0, 0n)));
    expect(GgufTruncatedError.isInstance(error)).toBe(true);
  });
});

function typed(sink: ByteSink, typeCode: number, write: (sink: ByteSink) => void): void {
  sink.uint32(typeCode);
  write(sink);
}

describe("reading invalid key/values", () => {
  const keyValue = (key: string, write: (sink: ByteSink) => void): Uint8Array =>
    craft({ tensorCount: 0n, keyValueCount: 1n }, (sink) => {
      sink.string(key);
      write(sink);
    });
  const cases: [string, Uint8Array, string][] = [
    [
      "an alignment that is not a power of two",
      keyValue("general.alignment", (sink) => typed(sink, valueType.uint32, (value) => value.uint32(3))),
      "power of two",
    ],
    [
      "an alignment of 0",
      keyValue("general.alignment", (sink) => typed(sink, valueType.uint32, (value) => value.uint32(0))),
      "power of two",
    ],
    [
      "an alignment that is a string",
      keyValue("general.alignment", (sink) => typed(sink, valueType.string, (value) => value.string("32"))),
      "not uint32",
    ],
    ["an unknown value type", keyValue("general.name", (sink) => sink.uint32(77)), "unknown value type 77"],
    [
      "a bool byte of 2",
      keyValue("general.flag", (sink) => typed(sink, valueType.bool, (value) => value.uint8(2))),
      "bool",
    ],
    [
      "invalid UTF-8",
      keyValue("general.name", (sink) => {
        sink.uint32(valueType.string);
        sink.uint64(2n);
        sink.uint8(0xc3);
        sink.uint8(0x28);
      }),
      "UTF-8",
    ],
    [
      "arrays nested 100 deep",
      keyValue("general.nested", (sink) => {
        sink.uint32(valueType.array);
        for (let depth = 0; depth < 100; depth++) {
          sink.uint32(valueType.array);
          sink.uint64(1n);
        }
        sink.uint32(valueType.uint32);
        sink.uint64(0n);
      }),
      "nested more than 8 deep",
    ],
    [
      "a duplicate key",
      craft({ tensorCount: 0n, keyValueCount: 2n }, (sink) => {
        for (let index = 0; index < 2; index++) {
          sink.string("general.name");
          sink.uint32(valueType.string);
          sink.string("x");
        }
      }),
      "duplicate key",
    ],
  ];
  for (const [name, bytes, phrase] of cases) {
    it(`rejects ${name}`, async () => {
      const error = await rejection(scratch.file(`${name}.gguf`, bytes));
      expect(GgufInvalidMetadataError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(phrase);
    });
  }
});
