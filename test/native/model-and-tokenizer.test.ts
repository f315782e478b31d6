import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import { LlamaDisposedError } from "../../src/backends/llamacpp/errors/llama-disposed-error.js";
import { ModelLoadAbortedError } from "../../src/backends/llamacpp/errors/model-load-aborted-error.js";
import { ModelLoadError } from "../../src/backends/llamacpp/errors/model-load-error.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { loadTinyModel } from "./tiny-model.js";

describe("a loaded tiny model", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadTinyModel();
  });
  afterAll(() => model.dispose());

  it("reports its metadata", () => {
    expect(model.metadata.vocabSize).toBe(32000);
    expect(model.metadata.architecture).toBe("llama");
    expect(model.metadata.trainContextSize).toBeGreaterThan(0);
    expect(model.metadata.bos).toBe(1);
    expect(model.metadata.eos).toBe(2);
    expect([...model.metadata.endOfGenerationTokens]).toContain(2);
    expect(typeof model.metadata.chatTemplate).toBe("string");
    expect(model.metadata.values["general.architecture"]).toBe("llama");
  });

  it("round-trips text through tokenize and detokenize", () => {
    const tokens = model.tokenize("Hello world, ünïcödé 日本");
    expect(tokens[0]).toBe(model.metadata.bos);
    expect(model.detokenize(tokens.subarray(1))).toBe("Hello world, ünïcödé 日本");
    expect(model.tokenize("Hello", { addSpecial: false })[0]).not.toBe(model.metadata.bos);
  });

  it("turns a token into its bytes", () => {
    const tokens = model.tokenize("Hello world", { addSpecial: false });
    expect(new TextDecoder().decode(model.tokenToPiece(tokens[tokens.length - 1]!))).toBe(" world");
  });

  it("rejects token ids outside the vocabulary before they index anything", () => {
    expect(() => model.tokenToPiece(32000)).toThrow(InvalidOptionError);
    expect(() => model.tokenToPiece(-1)).toThrow(
      /Expected an integer between 0 and 31999 for token but received -1/,
    );
    expect(() => model.detokenize([5, 99999])).toThrow(/outside the vocabulary/);
  });

  it("rejects unknown and out-of-range context options", async () => {
    await expect(model.createContext({ sequence: 2 } as never)).rejects.toThrow(InvalidOptionError);
    await expect(model.createContext({ threads: 0 })).rejects.toThrow(/threads/);
  });
});

describe("loadLlamaModel", () => {
  it("names the path of a missing file", async () => {
    await expect(loadLlamaModel("/nonexistent/model.gguf")).rejects.toThrow(ModelLoadError);
  });

  it("rejects a file llama.cpp cannot read with the reason", async () => {
    const error = await loadLlamaModel(new URL("./tiny-model.ts", import.meta.url).pathname).catch(
      (caught) => caught,
    );
    expect(ModelLoadError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/tiny-model\.ts/);
  });

  it("does nothing when the signal is already aborted", async () => {
    const path = await resolveDefaultModel();
    await expect(loadLlamaModel(path, { signal: AbortSignal.abort() })).rejects.toThrow(
      ModelLoadAbortedError,
    );
  });

  it("aborts during loading when the signal fires from the progress callback", async () => {
    const path = await resolveDefaultModel();
    const controller = new AbortController();
    const error = await loadLlamaModel(path, {
      signal: controller.signal,
      useMmap: false,
      onProgress: () => controller.abort(),
    }).catch((caught) => caught);
    // Progress is delivered asynchronously: a very fast load may finish first, which is fine too.
    if (error instanceof Error) expect(ModelLoadAbortedError.isInstance(error)).toBe(true);
    else await (error as LlamaModel)[Symbol.asyncDispose]();
  });

  it("reports progress up to 1", async () => {
    const progress: number[] = [];
    const model = await loadLlamaModel(await resolveDefaultModel(), {
      onProgress: (value) => progress.push(value),
    });
    model.dispose();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(progress.length).toBeGreaterThan(0);
    expect(Math.max(...progress)).toBe(1);
  });

  it("throws LlamaDisposedError after dispose", async () => {
    const model = await loadTinyModel();
    model.dispose();
    expect(() => model.tokenize("x")).toThrow(LlamaDisposedError);
    await expect(model.createContext()).rejects.toThrow(LlamaDisposedError);
  });

  it("gives a context of a disposed model LlamaDisposedError on every call, not the addon's plain error", async () => {
    const model = await loadTinyModel();
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    model.dispose();
    expect(() => context.counters).toThrow(LlamaDisposedError);
    expect(() => context.resetPeakCounter()).toThrow(LlamaDisposedError);
    expect(() => context.sequenceTokens(0)).toThrow(LlamaDisposedError);
    expect(() => context.generate(Int32Array.of(1, 2), { maxTokens: 1 })).toThrow(LlamaDisposedError);
  });
});

describe("GPU offload on a machine without a usable GPU", () => {
  it("falls back to the CPU and says why each GPU backend was not used", async () => {
    const model = await loadLlamaModel(await resolveDefaultModel(), { gpuLayers: "max" });
    try {
      expect(model.gpu.backend).toBeNull();
      expect(model.gpu.layers).toBe(0);
      expect(model.gpuAttempts.map((attempt) => attempt.path).join(" ")).toMatch(/cuda/);
      for (const attempt of model.gpuAttempts) expect(attempt.failure.length).toBeGreaterThan(0);
      const context = await model.createContext({ contextSize: 128, threads: 1 });
      const result = await context.generate(model.tokenize("Hi"), { temperature: 0, maxTokens: 3 }).collect();
      expect(result.generatedTokens).toBeGreaterThan(0);
    } finally {
      model.dispose();
    }
  });
});
