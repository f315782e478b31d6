import type { NativeAddon } from "../addon-types.js";
import { GpuRuntimeLibraryMissingError } from "../errors/gpu-runtime-library-missing-error.js";
import type { GpuBackendAttempt } from "./gpu-backend-attempt.js";
import { type GpuBackendCandidate, gpuBackendCandidates, locateCandidate } from "./gpu-backend-candidates.js";
import { unresolvedSharedLibraries } from "./shared-library-check.js";

export interface GpuBackendResolution {
  /** The registered name of the backend that serves GPU layers ("CUDA", "Vulkan"), or null. */
  readonly name: string | null;
  /** Which candidate it is ("CUDA 13", "CUDA 12", "Vulkan"), or null. */
  readonly backend: string | null;
  /** Every candidate tried, in order, up to and including the one that loaded. */
  readonly attempts: readonly GpuBackendAttempt[];
}

let resolved: GpuBackendResolution | undefined;

/**
 * Registers the first GPU backend that loads and finds a device: CUDA 13, CUDA 12, Vulkan (once per
 * process; ggml cannot unregister a backend). Never throws: what failed and why is in `attempts`, with a
 * GpuRuntimeLibraryMissingError naming each library the loader cannot find.
 */
export function resolveGpuBackend(addon: NativeAddon): GpuBackendResolution {
  if (resolved !== undefined) return resolved;
  // A self-built llama.cpp (TESSERA_LLAMA_LIBRARIES_DIR, as scripts/gpu-check.sh builds it) registers its
  // GPU backend with the CPU one: that one serves, and node-llama-cpp's packages are not tried.
  const registered = addon.listDevices().find((device) => device.type !== "cpu");
  if (registered !== undefined) {
    const backend = `${registered.name.replace(/\d+$/, "")} (from ${process.env.TESSERA_LLAMA_LIBRARIES_DIR ?? "the CPU libraries' folder"})`;
    resolved = { name: registered.name, backend, attempts: [] };
    return resolved;
  }
  const attempts: GpuBackendAttempt[] = [];
  for (const candidate of gpuBackendCandidates()) {
    const attempt = tryCandidate(addon, candidate);
    attempts.push(attempt);
    if (attempt.loaded) {
      resolved = { name: attempt.registeredName ?? candidate.backend, backend: candidate.backend, attempts };
      return resolved;
    }
  }
  resolved = { name: null, backend: null, attempts };
  return resolved;
}

function tryCandidate(
  addon: NativeAddon,
  candidate: GpuBackendCandidate,
): GpuBackendAttempt & { registeredName?: string } {
  const base = { backend: candidate.backend, packageName: candidate.packageName };
  const located = locateCandidate(candidate);
  if ("failure" in located) {
    return { ...base, path: located.path, failure: located.failure, loaded: false, missingLibraries: [] };
  }
  const path = located.path;
  // Asked before dlopen: its error would name only the first missing library.
  const missing = unresolvedSharedLibraries(path) ?? [];
  if (missing.length > 0) {
    const error = new GpuRuntimeLibraryMissingError(candidate.backend, path, missing);
    return {
      ...base,
      path,
      failure: `missing ${missing.join(", ")}`,
      loaded: false,
      missingLibraries: missing,
      error,
    };
  }
  const devicesBefore = gpuDeviceCount(addon);
  const name = addon.loadBackendLibrary(path);
  if (name === null) {
    return {
      ...base,
      path,
      failure: "ggml could not load it (its libraries resolve; run with --verbose for llama.cpp's log)",
      loaded: false,
      missingLibraries: [],
    };
  }
  if (gpuDeviceCount(addon) === devicesBefore) {
    return {
      ...base,
      path,
      failure: `it loads, but finds no ${candidate.backend.startsWith("CUDA") ? "CUDA" : "Vulkan"} device (no GPU, or a driver too old for it)`,
      loaded: false,
      missingLibraries: [],
    };
  }
  return { ...base, path, failure: "", loaded: true, missingLibraries: [], registeredName: name };
}

function gpuDeviceCount(addon: NativeAddon): number {
  return addon.listDevices().filter((device) => device.type !== "cpu").length;
}
