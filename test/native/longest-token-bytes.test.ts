// The longest token's bytes bound a prompt's token count without tokenizing it (request-preparation's
// oversized-prompt check). The load worker now finds it off the JavaScript thread; these tests hold it to
// the scan JavaScript did before, token by token through tokenToPiece, on each committed model.
import { afterAll, describe, expect, it } from "vitest";
import type { NativeModel } from "../../src/backends/llamacpp/addon-types.js";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { packageRoot } from "../../src/support/package-folders.js";

function scanLongest(model: NativeModel): number {
  const vocabSize = model.getMetadata().vocabSize;
  let longest = 1;
  for (let token = 0; token < vocabSize; token++)
    longest = Math.max(longest, model.tokenToPiece(token, true).length);
  return longest;
}

const loaded: NativeModel[] = [];
afterAll(() => {
  for (const model of loaded) model.dispose();
});

describe("the longest token's bytes, found at load", () => {
  it.each([
    ["the default model", async () => resolveDefaultModel()],
    ["tiny-arith", async () => `${packageRoot()}/models/tiny-arith.gguf`],
  ])("equals a token-by-token scan on %s", async (_name, path) => {
    const model = await loadNativeAddon().loadModel(await path(), { gpuLayers: 0, useMmap: true }).promise;
    loaded.push(model);
    const found = model.longestPieceBytes();
    expect(found).toBeGreaterThan(1);
    expect(found).toBe(scanLongest(model));
  });

  it("is what LlamaModel.longestTokenBytes reports", async () => {
    const path = await resolveDefaultModel();
    const model = await loadLlamaModel(path);
    try {
      const raw = await loadNativeAddon().loadModel(path, { gpuLayers: 0, useMmap: true }).promise;
      loaded.push(raw);
      expect(model.longestTokenBytes).toBe(raw.longestPieceBytes());
    } finally {
      model.dispose();
    }
  });

  it("refuses a disposed model with a typed error", async () => {
    const model = await loadNativeAddon().loadModel(await resolveDefaultModel(), {
      gpuLayers: 0,
      useMmap: true,
    }).promise;
    model.dispose();
    expect(() => model.longestPieceBytes()).toThrow(/disposed/);
  });
});
