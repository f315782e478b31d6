import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import { GgufWriteError } from "../../src/gguf/errors/gguf-write-error.js";
import { readGgufFile, readGgufTensorBytes } from "../../src/gguf/gguf-reader.js";
import { type GgufMetadataEntry, gguf, ggufPlainValue } from "../../src/gguf/gguf-value.js";
import { type GgufTensorSource, writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { scratchFolder } from "./crafted-files.js";

const scratch = scratchFolder();
afterAll(() => scratch.remove());

function bytesTensor(name: string, shape: number[], fill: number, chunkSize = 7): GgufTensorSource {
  const length = shape.reduce((product, size) => product * size, 4);
  return {
    name,
    shape,
    type: "F32",
    *data() {
      for (let offset = 0; offset < length; offset += chunkSize) {
        yield new Uint8Array(Math.min(chunkSize, length - offset)).fill(fill);
      }
    },
  };
}

const everyType: GgufMetadataEntry[] = [
  { key: "test.uint8", value: { type: "uint8", value: 255 } },
  { key: "test.int8", value: { type: "int8", value: -128 } },
  { key: "test.uint16", value: { type: "uint16", value: 65535 } },
  { key: "test.int16", value: { type: "int16", value: -32768 } },
  { key: "test.uint32", value: gguf.uint32(4294967295) },
  { key: "test.int32", value: gguf.int32(-2147483648) },
  { key: "test.float32", value: gguf.float32(0.5) },
  { key: "test.float64", value: { type: "float64", value: Math.PI } },
  { key: "test.uint64", value: gguf.uint64(2n ** 64n - 1n) },
  { key: "test.int64", value: { type: "int64", value: -(2n ** 63n) } },
  { key: "test.bool", value: gguf.bool(true) },
  { key: "test.string", value: gguf.string("héllo \u{1f600}\ufeff") },
  { key: "test.array", value: gguf.array("int32", [1, -2, 3]) },
  { key: "test.strings", value: gguf.array("string", ["a", "", "\ufeffb"]) },
  {
    key: "test.nested",
    value: gguf.array("array", [
      { type: "array", itemType: "uint8", values: [1, 2] },
      { type: "array", itemType: "string", values: ["x"] },
    ]),
  },
  { key: "test.empty", value: gguf.array("float32", []) },
];

describe("writing GGUF files", () => {
  it("round-trips every value type, including nested arrays, through our reader", async () => {
    const path = join(scratch.path, "types.gguf");
    await writeGgufFile(path, { metadata: everyType, tensors: [] });
    const info = await readGgufFile(path);
    expect(info.version).toBe(3);
    expect(info.metadata).toEqual(everyType);
  });

  it("agrees with node-llama-cpp on values it represents", async () => {
    const path = join(scratch.path, "types-nlc.gguf");
    await writeGgufFile(path, { metadata: everyType, tensors: [] });
    const theirs = (await readGgufFileInfo(path)).metadata as unknown as { test: Record<string, unknown> };
    expect(theirs.test.string).toBe(ggufPlainValue(everyType[11]!.value));
    expect(theirs.test.int32).toBe(-2147483648);
    expect(theirs.test.strings).toEqual(["a", "", "\ufeffb"]);
  });

  it("aligns and pads tensor data, streaming chunks of any size", async () => {
    const path = join(scratch.path, "aligned.gguf");
    const progress: number[] = [];
    const result = await writeGgufFile(path, {
      metadata: [{ key: "general.alignment", value: gguf.uint32(64) }],
      tensors: [bytesTensor("a", [3], 1), bytesTensor("b", [5, 2], 2, 3), bytesTensor("c", [1], 3)],
      onProgress: (update) => progress.push(update.bytesWritten),
    });
    expect(statSync(path).size).toBe(result.totalBytes);
    expect(progress.at(-1)).toBe(result.totalBytes);
    const info = await readGgufFile(path);
    expect(info.alignment).toBe(64);
    expect(info.tensorDataOffset % 64).toBe(0);
    expect(info.tensors.map((tensor) => tensor.relativeOffset)).toEqual([0, 64, 128]);
    expect(result.totalBytes).toBe(info.tensorDataOffset + 192);
    const bytes = readFileSync(path);
    expect([...(await readGgufTensorBytes(path, info.tensors[1]!))]).toEqual(new Array(40).fill(2));
    // The padding between tensors is zeros.
    expect([...bytes.subarray(info.tensorDataOffset + 12, info.tensorDataOffset + 64)]).toEqual(
      new Array(52).fill(0),
    );
  });

  it("rejects a tensor whose producer yields the wrong number of bytes, and leaves no file", async () => {
    for (const [name, chunk] of [
      ["short", 15],
      ["long", 17],
    ] as const) {
      const path = join(scratch.path, `${name}.gguf`);
      const write = writeGgufFile(path, {
        metadata: [],
        tensors: [{ name: "t", shape: [4], type: "F32", data: () => [new Uint8Array(chunk)] }],
      });
      await expect(write).rejects.toSatisfy((error) => GgufWriteError.isInstance(error));
      await expect(write).rejects.toThrow(/produced \d+ bytes, its shape needs 16/);
      expect(existsSync(path)).toBe(false);
    }
  });

  it("rejects values that do not fit their type", async () => {
    const cases: GgufMetadataEntry[] = [
      { key: "bad.uint8", value: { type: "uint8", value: 256 } },
      { key: "bad.uint32", value: gguf.uint32(-1) },
      { key: "bad.int32", value: gguf.int32(1.5) },
      { key: "bad.array", value: gguf.array("string", ["ok", 3]) },
    ];
    for (const entry of cases) {
      await expect(
        writeGgufFile(join(scratch.path, "bad.gguf"), { metadata: [entry], tensors: [] }),
      ).rejects.toThrow(entry.key);
    }
  });

  it("rejects a metadata value that is not a typed GGUF value (a plain string, number or null), naming the key", async () => {
    const path = join(scratch.path, "plain.gguf");
    for (const plain of ["llama", 3, null, { type: "text", value: "x" }]) {
      const entry = { key: "general.architecture", value: plain } as unknown as GgufMetadataEntry;
      const write = writeGgufFile(path, { metadata: [entry], tensors: [] });
      await expect(write).rejects.toSatisfy((error) => GgufWriteError.isInstance(error));
      await expect(write).rejects.toThrow(/"general\.architecture".*gguf\.string/);
      expect(existsSync(path)).toBe(false);
    }
  });

  it("rejects duplicate keys and names, bad shapes and a bad alignment before writing anything", async () => {
    const path = join(scratch.path, "never.gguf");
    const attempts = [
      { metadata: [everyType[0]!, everyType[0]!], tensors: [] },
      { metadata: [], tensors: [bytesTensor("t", [1], 0), bytesTensor("t", [1], 0)] },
      { metadata: [], tensors: [bytesTensor("t", [1, 1, 1, 1, 1], 0)] },
      { metadata: [], tensors: [{ ...bytesTensor("t", [33], 0), type: "Q4_0" as const }] },
      { metadata: [{ key: "general.alignment", value: gguf.uint32(48) }], tensors: [] },
    ];
    for (const attempt of attempts) {
      await expect(writeGgufFile(path, attempt)).rejects.toSatisfy((error) =>
        GgufWriteError.isInstance(error),
      );
      expect(existsSync(path)).toBe(false);
    }
  });

  it("stops when aborted and removes the partial file", async () => {
    const path = join(scratch.path, "aborted.gguf");
    const controller = new AbortController();
    const tensor: GgufTensorSource = {
      name: "t",
      shape: [1 << 20],
      type: "F32",
      *data() {
        for (let chunk = 0; chunk < 4; chunk++) {
          if (chunk === 2) controller.abort(new Error("stop"));
          yield new Uint8Array(1 << 20);
        }
      },
    };
    await expect(
      writeGgufFile(path, { metadata: [], tensors: [tensor], signal: controller.signal }),
    ).rejects.toThrow("stop");
    expect(existsSync(path)).toBe(false);
  });
});
