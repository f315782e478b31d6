// GPU offload on this CPU-only machine, for real: every backend node-llama-cpp ships is tried in order
// (CUDA 13, the CUDA 12 fallback, Vulkan), each failure says which library is missing and what provides
// it, and gpuLayers "auto" resolves to 0 with the reason.
import { describe, expect, it } from "vitest";
import { GpuRuntimeLibraryMissingError } from "../../src/backends/llamacpp/errors/gpu-runtime-library-missing-error.js";
import { GpuUnavailableError } from "../../src/backends/llamacpp/errors/gpu-unavailable-error.js";
import { estimateModelMemory } from "../../src/backends/llamacpp/gpu/model-memory-estimate.js";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";

const cpuOnly = !loadNativeAddon()
  .listDevices()
  .some((device) => device.type !== "cpu");

describe.runIf(cpuOnly)("GPU offload on a machine without a usable GPU", () => {
  it('resolves gpuLayers "auto" to 0 layers and says why each backend did not load', async () => {
    const model = await loadLlamaModel(await resolveDefaultModel(), { gpuLayers: "auto" });
    try {
      expect(model.gpu.backend).toBeNull();
      expect(model.gpu.layers).toBe(0);
      expect(model.gpu.requestedLayers).toBe("auto");
      expect(model.gpu.attempts.map((attempt) => attempt.backend)).toEqual(["CUDA 13", "CUDA 12", "Vulkan"]);
      expect(model.gpu.explanation).toMatch(
        /^no GPU backend loads, so the CPU runs every layer \(CUDA 13: .+; CUDA 12: .+; Vulkan: .+\)$/,
      );
      for (const attempt of model.gpu.attempts) {
        expect(attempt.loaded).toBe(false);
        expect(attempt.failure).not.toBe("");
      }
      const context = await model.createContext({ contextSize: 64, threads: 1 });
      const result = await context.generate(model.tokenize("Hi"), { temperature: 0, maxTokens: 2 }).collect();
      expect(result.generatedTokens).toBe(2);
    } finally {
      model.dispose();
    }
  });

  it("tries the CUDA 12 fallback of @node-llama-cpp/linux-x64-cuda-ext after CUDA 13", async () => {
    const model = await loadLlamaModel(await resolveDefaultModel(), { gpuLayers: 4 });
    try {
      const fallback = model.gpu.attempts[1];
      expect(fallback?.packageName).toBe(`@node-llama-cpp/${process.platform}-${process.arch}-cuda-ext`);
      // Installed: the path is the library itself. Not installed: the failure names the package.
      expect(`${fallback?.path} ${fallback?.failure}`).toMatch(
        /fallback\/libggml-cuda\.so|cuda-ext is not installed/,
      );
    } finally {
      model.dispose();
    }
  });

  it("names each missing runtime library and the package that provides it", async () => {
    const model = await loadLlamaModel(await resolveDefaultModel(), { gpuLayers: "max" });
    try {
      const missing = model.gpu.attempts.filter((attempt) => attempt.missingLibraries.length > 0);
      // This machine has the GPU packages installed but no NVIDIA driver: libcuda.so.1 is missing at least.
      expect(missing.length).toBeGreaterThan(0);
      for (const attempt of missing) {
        expect(GpuRuntimeLibraryMissingError.isInstance(attempt.error)).toBe(true);
        const error = attempt.error as GpuRuntimeLibraryMissingError;
        expect(error.missingLibraries).toEqual(attempt.missingLibraries);
        for (const library of attempt.missingLibraries) expect(error.message).toContain(`${library}: from `);
        expect(attempt.failure).toBe(`missing ${attempt.missingLibraries.join(", ")}`);
      }
      const cuda = missing.find((attempt) => attempt.backend.startsWith("CUDA"));
      if (cuda !== undefined) expect(cuda.error?.message).toMatch(/libcuda\.so\.1: from the NVIDIA driver/);
    } finally {
      model.dispose();
    }
  });

  it("throws GpuUnavailableError listing every backend when requireGpu is set", async () => {
    const error = await loadLlamaModel(await resolveDefaultModel(), {
      gpuLayers: "auto",
      requireGpu: true,
    }).catch((caught: unknown) => caught);
    expect(GpuUnavailableError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/No GPU backend could be loaded, and requireGpu is set/);
    for (const backend of ["CUDA 13", "CUDA 12", "Vulkan"]) expect(message).toContain(`  - ${backend}: `);
  });

  it("leaves the GPU alone when gpuLayers is 0 (the default)", async () => {
    const model = await loadLlamaModel(await resolveDefaultModel());
    try {
      expect(model.gpu).toMatchObject({ backend: null, layers: 0, requestedLayers: 0, attempts: [] });
    } finally {
      model.dispose();
    }
  });
});

describe("estimateModelMemory", () => {
  it("sums each layer's tensors from the GGUF tensor table and sizes the KV cell from the head counts", async () => {
    const file = await readGgufFile(await resolveDefaultModel());
    const estimate = estimateModelMemory(file);
    const blockBytes = file.tensors
      .filter((tensor) => tensor.name.startsWith("blk."))
      .reduce((sum, tensor) => sum + tensor.byteSize, 0);
    expect(estimate.layerWeightBytes.length).toBe(estimate.layerCount);
    expect(estimate.layerWeightBytes.reduce((sum, bytes) => sum + bytes, 0)).toBe(blockBytes);
    const model = await loadLlamaModel(await resolveDefaultModel());
    try {
      const values = model.metadata.values;
      const heads = Number(values["llama.attention.head_count"]);
      const kvHeads = Number(values["llama.attention.head_count_kv"] ?? heads);
      const headSize = model.metadata.embeddingSize / heads;
      expect(estimate.layerCount).toBe(model.metadata.layerCount);
      expect(estimate.kvBytesPerCellPerLayer).toBe(2 * headSize * kvHeads * 2);
      expect(estimate.vocabSize).toBe(model.vocabSize);
    } finally {
      model.dispose();
    }
  });
});
