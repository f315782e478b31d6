import type { ModelMemoryEstimate } from "./model-memory-estimate.js";

/** Free memory of one GPU device, as ggml reports it. */
export interface GpuDeviceMemory {
  readonly name: string;
  readonly memoryFree: number;
  readonly memoryTotal: number;
}

export interface GpuLayerPlanRequest {
  readonly model: ModelMemoryEstimate;
  readonly devices: readonly GpuDeviceMemory[];
  /** KV cells of the contexts to come: contextSize × sequences. */
  readonly contextCells: number;
  /** Cells one sequence attends over (contextSize); sizes the attention scratch. */
  readonly sequenceContextSize: number;
  /** Tokens per micro-batch (llama.cpp's n_ubatch; the addon uses min(batchSize, 512)). */
  readonly microBatch: number;
}

/** How many layers `gpuLayers: "auto"` offloads, with the figures behind it. */
export interface GpuLayerPlan {
  /** The value passed to llama.cpp: layerCount + 1 offloads the output layer too. */
  readonly layers: number;
  readonly layerCount: number;
  readonly freeBytes: number;
  /** Free memory minus the compute buffers and the safety margin. */
  readonly usableBytes: number;
  readonly computeBytes: number;
  readonly marginBytes: number;
  /** Weights + KV cache of what was offloaded. */
  readonly plannedBytes: number;
  /** What offloading everything would take (weights, output layer, KV cache). */
  readonly allBytes: number;
  readonly kvBytesPerLayer: number;
  readonly explanation: string;
}

const mebibyte = 1024 * 1024;
/** Kept free for the CUDA context's later allocations (cuBLAS workspace, graphs) and other processes. */
const minimumMarginBytes = 256 * mebibyte;

/**
 * Offloads as many of the last layers as fit (llama.cpp offloads from the end), counting each layer's
 * weights and its share of the KV cache for the requested context, after setting aside the compute
 * buffers (logits and attention scores of one micro-batch, F32) and a margin (256 MiB or 2% of the
 * device memory, the larger). The output layer goes last, when every repeating layer fits.
 */
export function planGpuLayers(request: GpuLayerPlanRequest): GpuLayerPlan {
  const { model, contextCells } = request;
  const freeBytes = request.devices.reduce((sum, device) => sum + Math.max(0, device.memoryFree), 0);
  const totalBytes = request.devices.reduce((sum, device) => sum + Math.max(0, device.memoryTotal), 0);
  const marginBytes = Math.max(minimumMarginBytes, Math.round(totalBytes * 0.02));
  const computeBytes =
    4 *
    request.microBatch *
    (model.vocabSize + model.headCount * Math.min(request.sequenceContextSize, contextCells));
  const usableBytes = Math.max(0, freeBytes - marginBytes - computeBytes);
  const kvBytesPerLayer = model.kvBytesPerCellPerLayer * contextCells;
  const layerCount = model.layerCount;
  const layerBytes = (index: number) => (model.layerWeightBytes[index] ?? 0) + kvBytesPerLayer;
  const allBytes =
    model.layerWeightBytes.reduce((sum, bytes) => sum + bytes, 0) +
    kvBytesPerLayer * layerCount +
    model.outputLayerBytes;

  let layers = 0;
  let plannedBytes = 0;
  for (let index = layerCount - 1; index >= 0; index--) {
    if (plannedBytes + layerBytes(index) > usableBytes) break;
    plannedBytes += layerBytes(index);
    layers++;
  }
  if (layers === layerCount && plannedBytes + model.outputLayerBytes <= usableBytes) {
    plannedBytes += model.outputLayerBytes;
    layers++;
  }
  const figures =
    `${mib(freeBytes)} MiB free on ${request.devices.map((device) => device.name).join(", ") || "no device"}, ` +
    `${mib(computeBytes)} MiB for compute buffers and ${mib(marginBytes)} MiB margin set aside; ` +
    `each layer takes about ${mib(layerBytes(layerCount - 1))} MiB (KV cache for ${contextCells} cells included), ` +
    `the whole model ${mib(allBytes)} MiB`;
  const explanation =
    layers === layerCount + 1
      ? `all ${layerCount} layers and the output layer fit: ${figures}`
      : layers === 0
        ? `no layer fits: ${figures}`
        : `${layers} of ${layerCount + 1} layers (the last ones; the output layer counts as one) fit: ${figures}`;
  return {
    layers,
    layerCount,
    freeBytes,
    usableBytes,
    computeBytes,
    marginBytes,
    plannedBytes,
    allBytes,
    kvBytesPerLayer,
    explanation,
  };
}

function mib(bytes: number): string {
  return (bytes / mebibyte).toFixed(0);
}
