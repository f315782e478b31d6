import { readGgufFileInfo } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { resolveDefaultModel, resolveModel, vocabularyCacheDirectory } from "../../src/gguf/default-model.js";
import { ggmlTypes } from "../../src/gguf/ggml-type.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { ggufPlainValue } from "../../src/gguf/gguf-value.js";
import { ensureVocabularyFile, vocabularyNames } from "../../src/gguf/vocab-bundle.js";

function lookUp(tree: unknown, key: string): unknown {
  let node = tree;
  for (const part of key.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

// node-llama-cpp returns uint64/int64 as numbers when they fit; compare on that footing.
function comparable(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(comparable);
  return value;
}

async function expectAgreement(path: string): Promise<number> {
  const ours = await readGgufFile(path);
  const theirs = await readGgufFileInfo(path, { readTensorInfo: true });
  expect(theirs.version).toBe(ours.version);
  let compared = 0;
  for (const { key, value } of ours.metadata) {
    expect(comparable(ggufPlainValue(value)), key).toEqual(comparable(lookUp(theirs.metadata, key)));
    compared++;
  }
  const theirTensors = theirs.tensorInfo ?? [];
  expect(theirTensors.length).toBe(ours.tensors.length);
  ours.tensors.forEach((tensor, index) => {
    const their = theirTensors[index]!;
    expect(their.name).toBe(tensor.name);
    expect(their.dimensions.map(Number)).toEqual(tensor.shape);
    expect(their.ggmlType).toBe(ggmlTypes[tensor.type].code);
    expect(Number(their.offset)).toBe(tensor.relativeOffset);
    expect(Number(their.fileOffset)).toBe(tensor.fileOffset);
  });
  return compared;
}

describe("our reader and node-llama-cpp's readGgufFileInfo", () => {
  for (const vocabulary of vocabularyNames) {
    it(`agree on every key of the bundled ${vocabulary} vocabulary`, async () => {
      const path = await ensureVocabularyFile(vocabulary, vocabularyCacheDirectory());
      expect(await expectAgreement(path)).toBeGreaterThan(10);
    });
  }

  it("agree on every key and tensor of the tiny model we write", async () => {
    expect(await expectAgreement(await resolveDefaultModel())).toBeGreaterThan(20);
  });

  it("agree on a quantized BPE model we write", async () => {
    expect(await expectAgreement(await resolveModel("tiny-bpe:q4_0"))).toBeGreaterThan(20);
  });
});
