// The gpuLayers "auto" planner on synthetic device memory figures (no GPU needed: it is arithmetic).
import { describe, expect, it } from "vitest";
import { planGpuLayers } from "../../src/backends/llamacpp/gpu/gpu-layer-plan.js";
import type { ModelMemoryEstimate } from "../../src/backends/llamacpp/gpu/model-memory-estimate.js";

const mebibyte = 1024 * 1024;
const gibibyte = 1024 * mebibyte;

// Roughly Llama-3.2-1B at Q4_0: 16 layers of ~40 MiB, a 128k-token LM head, 32 KiB of KV per cell per layer.
const model: ModelMemoryEstimate = {
  layerCount: 16,
  layerWeightBytes: Array.from({ length: 16 }, () => 40 * mebibyte),
  outputLayerBytes: 300 * mebibyte,
  kvBytesPerCellPerLayer: 32 * 1024,
  vocabSize: 128256,
  embeddingSize: 2048,
  headCount: 32,
};

function plan(freeBytes: number, contextCells: number, totalBytes = 80 * gibibyte) {
  return planGpuLayers({
    model,
    devices: [{ name: "CUDA0", memoryFree: freeBytes, memoryTotal: totalBytes }],
    contextCells,
    sequenceContextSize: Math.min(contextCells, 4096),
    microBatch: 512,
  });
}

describe("planGpuLayers", () => {
  it("offloads every layer and the output layer when they fit", () => {
    const result = plan(60 * gibibyte, 4096);
    expect(result.layers).toBe(17);
    expect(result.explanation).toMatch(/^all 16 layers and the output layer fit/);
    expect(result.plannedBytes).toBe(result.allBytes);
  });

  it("counts the KV cache of the requested context: a longer context offloads fewer layers", () => {
    // 4096 cells: 128 MiB of KV per layer, 168 MiB a layer; 131072 cells: 4 GiB of KV per layer.
    const short = plan(4 * gibibyte, 4096);
    const long = plan(4 * gibibyte, 131072);
    expect(short.kvBytesPerLayer).toBe(128 * mebibyte);
    expect(long.kvBytesPerLayer).toBe(4 * gibibyte);
    expect(short.layers).toBeGreaterThan(long.layers);
    expect(long.layers).toBe(0);
    expect(long.explanation).toMatch(/^no layer fits/);
  });

  it("fits exactly as many whole layers as the usable memory holds", () => {
    const cells = 4096;
    const perLayer = 40 * mebibyte + 128 * mebibyte;
    const reference = plan(0, cells);
    const overhead = reference.computeBytes + reference.marginBytes;
    for (const layers of [1, 5, 15]) {
      const exact = plan(overhead + layers * perLayer, cells);
      expect(exact.layers).toBe(layers);
      expect(plan(overhead + layers * perLayer - 1, cells).layers).toBe(layers - 1);
    }
    // All 16 repeating layers fit but not the 300 MiB output layer.
    expect(plan(overhead + 16 * perLayer + 299 * mebibyte, cells).layers).toBe(16);
    expect(plan(overhead + 16 * perLayer + 300 * mebibyte, cells).layers).toBe(17);
  });

  it("sets aside a margin of 2% of device memory, at least 256 MiB, and the compute buffers", () => {
    expect(plan(gibibyte, 4096, 8 * gibibyte).marginBytes).toBe(256 * mebibyte);
    expect(plan(gibibyte, 4096, 141 * gibibyte).marginBytes).toBe(Math.round(141 * gibibyte * 0.02));
    // Logits of a 512-token micro-batch over 128256 tokens, plus 32 heads of attention scores over 4096 cells.
    expect(plan(gibibyte, 4096).computeBytes).toBe(4 * 512 * (128256 + 32 * 4096));
  });

  it("adds up the free memory of several devices and names them", () => {
    const two = planGpuLayers({
      model,
      devices: [
        { name: "CUDA0", memoryFree: gibibyte, memoryTotal: 8 * gibibyte },
        { name: "CUDA1", memoryFree: gibibyte, memoryTotal: 8 * gibibyte },
      ],
      contextCells: 4096,
      sequenceContextSize: 4096,
      microBatch: 512,
    });
    expect(two.freeBytes).toBe(2 * gibibyte);
    expect(two.explanation).toContain("CUDA0, CUDA1");
    expect(two.layers).toBeGreaterThan(plan(gibibyte, 4096, 8 * gibibyte).layers);
  });

  it("offloads nothing without a device", () => {
    const none = planGpuLayers({
      model,
      devices: [],
      contextCells: 4096,
      sequenceContextSize: 4096,
      microBatch: 512,
    });
    expect(none.layers).toBe(0);
    expect(none.explanation).toContain("no device");
  });
});
