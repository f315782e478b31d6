import type { GgufFileInfo } from "../../../gguf/gguf-file-info.js";
import type { NativeAddon } from "../addon-types.js";
import { GpuUnavailableError } from "../errors/gpu-unavailable-error.js";
import type { GpuBackendAttempt } from "./gpu-backend-attempt.js";
import { resolveGpuBackend } from "./gpu-backend-resolution.js";
import { type GpuLayerPlan, planGpuLayers } from "./gpu-layer-plan.js";
import { estimateModelMemory } from "./model-memory-estimate.js";

/** What `model.gpu` says: which backend serves how many layers, and why. */
export interface LlamaModelGpu {
  /** "CUDA 13", "CUDA 12" or "Vulkan"; null when the CPU runs everything. */
  readonly backend: string | null;
  readonly requestedLayers: number | "max" | "auto";
  /** Layers offloaded (the output layer counts as one: layerCount + 1 is everything). */
  readonly layers: number;
  /** Repeating layers of the model. */
  readonly layerCount: number;
  /** The fit `gpuLayers: "auto"` computed (absent for a number or "max", and when no GPU loaded). */
  readonly plan?: GpuLayerPlan;
  /** Every GPU backend tried and why it did not serve (empty when no GPU layer was asked for). */
  readonly attempts: readonly GpuBackendAttempt[];
  /** One sentence: where the layers run and why. */
  readonly explanation: string;
}

export interface OffloadRequest {
  readonly requested: number | "max" | "auto";
  readonly requireGpu: boolean;
  readonly file: GgufFileInfo;
  /** contextSize × sequences of the contexts to come ("auto" counts their KV cache). */
  readonly contextCells: number;
  readonly sequenceContextSize: number;
  readonly microBatch: number;
}

/** Picks the GPU backend and the layer count to pass to llama.cpp (-1 = all). */
export function resolveOffload(
  addon: NativeAddon,
  request: OffloadRequest,
): { readonly nativeLayers: number; readonly gpu: LlamaModelGpu } {
  const estimate = estimateModelMemory(request.file);
  const layerCount = estimate.layerCount;
  const base = { requestedLayers: request.requested, layerCount };
  if (request.requested === 0) {
    return {
      nativeLayers: 0,
      gpu: {
        ...base,
        backend: null,
        layers: 0,
        attempts: [],
        explanation: "gpuLayers is 0: the CPU runs every layer",
      },
    };
  }
  const resolution = resolveGpuBackend(addon);
  if (resolution.backend === null) {
    if (request.requireGpu) throw new GpuUnavailableError(resolution.attempts);
    const reasons = resolution.attempts.map((attempt) => `${attempt.backend}: ${attempt.failure}`).join("; ");
    return {
      nativeLayers: 0,
      gpu: {
        ...base,
        backend: null,
        layers: 0,
        attempts: resolution.attempts,
        explanation: `no GPU backend loads, so the CPU runs every layer (${reasons})`,
      },
    };
  }
  const attempts = resolution.attempts.filter((attempt) => !attempt.loaded);
  if (request.requested !== "auto") {
    const layers = request.requested === "max" ? layerCount + 1 : Math.min(request.requested, layerCount + 1);
    return {
      nativeLayers: request.requested === "max" ? -1 : request.requested,
      gpu: {
        ...base,
        backend: resolution.backend,
        layers,
        attempts,
        explanation: `${resolution.backend} runs ${layers} of ${layerCount + 1} layers (gpuLayers ${request.requested})`,
      },
    };
  }
  const plan = planGpuLayers({
    model: estimate,
    devices: addon.listDevices().filter((device) => device.type !== "cpu"),
    contextCells: request.contextCells,
    sequenceContextSize: request.sequenceContextSize,
    microBatch: request.microBatch,
  });
  return {
    nativeLayers: plan.layers,
    gpu: {
      ...base,
      backend: plan.layers > 0 ? resolution.backend : null,
      layers: plan.layers,
      plan,
      attempts,
      explanation: `gpuLayers "auto" on ${resolution.backend}: ${plan.explanation}`,
    },
  };
}
