import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GgufModelMismatchError } from "../../src/gguf/errors/gguf-model-mismatch-error.js";
import type { GgufTensorDescription } from "../../src/gguf/gguf-header-encoder.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { type GgufMetadataEntry, gguf } from "../../src/gguf/gguf-value.js";
import { type GgufTensorSource, writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { validateLlamaModel } from "../../src/gguf/llama-model-validation.js";
import { type LlamaHyperParameters, llamaTensorDescriptions } from "../../src/gguf/llama-synthesizer.js";
import { scratchFolder } from "./crafted-files.js";

const scratch = scratchFolder();
afterAll(() => scratch.remove());

const hyperParameters: LlamaHyperParameters = {
  embeddingLength: 32,
  blockCount: 1,
  headCount: 4,
  headCountKv: 2,
  feedForwardLength: 64,
  contextLength: 128,
  ropeFreqBase: 10000,
  rmsEpsilon: 1e-5,
  tiedOutput: true,
};
const tokenCount = 40;

interface Variation {
  metadata?: (entries: GgufMetadataEntry[]) => GgufMetadataEntry[];
  tensors?: (tensors: GgufTensorDescription[]) => GgufTensorDescription[];
}

/** Writes a real small llama GGUF (zero weights) with the given lies, and reads it back. */
async function craftedModel(name: string, variation: Variation = {}) {
  const tokens = Array.from({ length: tokenCount }, (_, index) => `t${index}`);
  let metadata: GgufMetadataEntry[] = [
    { key: "general.architecture", value: gguf.string("llama") },
    { key: "llama.embedding_length", value: gguf.uint32(hyperParameters.embeddingLength) },
    { key: "llama.block_count", value: gguf.uint32(hyperParameters.blockCount) },
    { key: "llama.attention.head_count", value: gguf.uint32(hyperParameters.headCount) },
    { key: "llama.attention.head_count_kv", value: gguf.uint32(hyperParameters.headCountKv) },
    { key: "llama.feed_forward_length", value: gguf.uint32(hyperParameters.feedForwardLength) },
    { key: "tokenizer.ggml.model", value: gguf.string("llama") },
    { key: "tokenizer.ggml.tokens", value: gguf.array("string", tokens) },
    {
      key: "tokenizer.ggml.scores",
      value: gguf.array(
        "float32",
        tokens.map(() => 0),
      ),
    },
    {
      key: "tokenizer.ggml.token_type",
      value: gguf.array(
        "int32",
        tokens.map(() => 1),
      ),
    },
    { key: "tokenizer.ggml.bos_token_id", value: gguf.uint32(1) },
    { key: "tokenizer.ggml.eos_token_id", value: gguf.uint32(2) },
  ];
  let descriptions = llamaTensorDescriptions(hyperParameters, tokenCount, "F32");
  metadata = variation.metadata?.(metadata) ?? metadata;
  descriptions = variation.tensors?.(descriptions) ?? descriptions;
  const tensors: GgufTensorSource[] = descriptions.map((description) => ({
    ...description,
    data: () => [new Uint8Array(description.shape.reduce((product, size) => product * size, 4))],
  }));
  const path = join(scratch.path, `${name}.gguf`);
  await writeGgufFile(path, { metadata, tensors });
  return readGgufFile(path);
}

function replace(key: string, value: GgufMetadataEntry["value"]) {
  return (entries: GgufMetadataEntry[]) =>
    entries.map((entry) => (entry.key === key ? { key, value } : entry));
}

async function problemsOf(name: string, variation: Variation): Promise<readonly string[]> {
  const info = await craftedModel(name, variation);
  try {
    validateLlamaModel(info);
  } catch (error) {
    expect(GgufModelMismatchError.isInstance(error)).toBe(true);
    return (error as GgufModelMismatchError).problems;
  }
  throw new Error("the model was accepted");
}

describe("validating a llama model (case 5)", () => {
  it("accepts a consistent model", async () => {
    const info = await craftedModel("valid");
    expect(info.tensors.length).toBeGreaterThan(0);
    expect(() => validateLlamaModel(info)).not.toThrow();
  });

  it("rejects a token count that differs from the embedding rows", async () => {
    const problems = await problemsOf("rows", {
      tensors: (tensors) =>
        tensors.map((tensor) =>
          tensor.name === "token_embd.weight" ? { ...tensor, shape: [32, tokenCount - 1] } : tensor,
        ),
    });
    expect(problems.join()).toContain("token_embd.weight has shape [32,39], expected [32,40]");
  });

  it("rejects special token ids outside the vocabulary", async () => {
    const problems = await problemsOf("special", {
      metadata: replace("tokenizer.ggml.bos_token_id", gguf.uint32(tokenCount)),
    });
    expect(problems.join()).toContain(
      `bos_token_id ${tokenCount} is outside the vocabulary of ${tokenCount}`,
    );
  });

  it("rejects a missing tensor", async () => {
    const problems = await problemsOf("missing", {
      tensors: (tensors) => tensors.filter((tensor) => tensor.name !== "blk.0.ffn_up.weight"),
    });
    expect(problems).toEqual(["tensor blk.0.ffn_up.weight is missing"]);
  });

  it("rejects a mis-shaped tensor", async () => {
    const problems = await problemsOf("shape", {
      tensors: (tensors) =>
        tensors.map((tensor) =>
          tensor.name === "blk.0.attn_k.weight" ? { ...tensor, shape: [32, 32] } : tensor,
        ),
    });
    expect(problems.join()).toContain("blk.0.attn_k.weight has shape [32,32], expected [32,16]");
  });

  it("rejects token arrays of different lengths and a wrong declared vocabulary size", async () => {
    const problems = await problemsOf("arrays", {
      metadata: (entries) => [
        ...replace("tokenizer.ggml.scores", gguf.array("float32", [0, 0, 0]))(entries),
        { key: "llama.vocab_size", value: gguf.uint32(41) },
      ],
    });
    expect(problems).toContain("tokenizer.ggml.scores has 3 entries for 40 tokens");
    expect(problems).toContain("llama.vocab_size is 41 but there are 40 tokens");
  });

  it("rejects heads that do not divide the embedding", async () => {
    const problems = await problemsOf("heads", {
      metadata: replace("llama.attention.head_count", gguf.uint32(5)),
    });
    expect(problems.join()).toContain("not divisible by 5 heads");
  });

  it("rejects another architecture", async () => {
    const problems = await problemsOf("architecture", {
      metadata: replace("general.architecture", gguf.string("gpt2")),
    });
    expect(problems[0]).toContain('"gpt2"');
  });
});
