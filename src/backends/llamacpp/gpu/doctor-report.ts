import { readdirSync, statfsSync, statSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { join } from "node:path";
import { modelsDirectory } from "../../../gguf/default-model.js";
import type { NativeDevice } from "../addon-types.js";
import { loadNativeAddon, prebuiltLibraryFolder } from "../native-addon.js";
import { physicalCoreCount } from "../native-thread-count.js";
import { resolveGpuBackend } from "./gpu-backend-resolution.js";
import { mappedLibraryPaths } from "./shared-library-check.js";
import { findSystemLibrary, nvidiaKernelDriver, nvidiaSmi, vulkanDrivers } from "./system-libraries.js";

/** Runtime libraries worth reporting: the GPU builds need them, and their absence is the usual cause. */
const reportedLibraries = [
  "libcuda.so.1",
  "libcudart.so.13",
  "libcublas.so.13",
  "libcudart.so.12",
  "libcublas.so.12",
  "libvulkan.so.1",
] as const;

export interface DoctorReport {
  readonly cpu: {
    readonly model: string;
    /** The libggml-cpu variant ggml picked for this CPU (mapped into the process). */
    readonly variant: string | null;
    readonly librariesFolder: string | null;
    readonly logicalCores: number;
    /** The default of `threads`: physical cores. */
    readonly defaultThreads: number;
    readonly features: string;
  };
  readonly gpuBackends: readonly {
    readonly backend: string;
    readonly packageName: string;
    readonly path: string;
    readonly loads: boolean;
    readonly reason: string | null;
    readonly missingLibraries: readonly string[];
    readonly detail: string | null;
  }[];
  /** The backend gpuLayers would use, or null. */
  readonly gpuBackend: string | null;
  readonly drivers: {
    readonly nvidiaKernelDriver: string | null;
    readonly nvidiaSmi: { readonly found: boolean; readonly lines: readonly string[] };
    readonly libraries: Readonly<Record<string, string | null>>;
    readonly vulkanDrivers: readonly string[];
  };
  readonly devices: readonly NativeDevice[];
  readonly models: {
    readonly folder: string;
    readonly ggufFiles: number;
    readonly ggufBytes: number;
    /** Space free for the current user on the folder's file system (or its nearest existing parent). */
    readonly freeBytes: number | null;
    readonly totalBytes: number | null;
  };
}

/** Everything `tessera doctor` shows. Loads the addon and tries every GPU backend (registering the one that loads). */
export function collectDoctorReport(): DoctorReport {
  const addon = loadNativeAddon();
  const resolution = resolveGpuBackend(addon);
  const variant = mappedLibraryPaths(/^libggml-cpu.*\.so$/)[0] ?? null;
  const cpuDevice = addon.listDevices().find((device) => device.type === "cpu");
  const libraries: Record<string, string | null> = {};
  for (const name of reportedLibraries) libraries[name] = findSystemLibrary(name);
  return {
    cpu: {
      model: cpuDevice?.description ?? cpus()[0]?.model ?? "unknown",
      variant: variant === null ? null : (variant.split("/").pop() ?? variant),
      librariesFolder: process.env.TESSERA_LLAMA_LIBRARIES_DIR ?? prebuiltLibraryFolder("") ?? null,
      logicalCores: availableParallelism(),
      defaultThreads: physicalCoreCount(),
      features: addon.systemInfo().trim(),
    },
    gpuBackends: resolution.attempts.map((attempt) => ({
      backend: attempt.backend,
      packageName: attempt.packageName,
      path: attempt.path,
      loads: attempt.loaded,
      reason: attempt.loaded ? null : attempt.failure,
      missingLibraries: attempt.missingLibraries,
      detail: attempt.error?.message ?? null,
    })),
    gpuBackend: resolution.backend,
    drivers: {
      nvidiaKernelDriver: nvidiaKernelDriver(),
      nvidiaSmi: nvidiaSmi(),
      libraries,
      vulkanDrivers: vulkanDrivers(),
    },
    devices: addon.listDevices(),
    models: modelFolderReport(modelsDirectory()),
  };
}

function modelFolderReport(folder: string): DoctorReport["models"] {
  let ggufFiles = 0;
  let ggufBytes = 0;
  try {
    for (const name of readdirSync(folder)) {
      if (!name.endsWith(".gguf")) continue;
      ggufFiles++;
      ggufBytes += statSync(join(folder, name)).size;
    }
  } catch {}
  // The folder is created on first use: measure the file system it will be on.
  for (let probe = folder; ; probe = join(probe, "..")) {
    try {
      const stats = statfsSync(probe);
      return {
        folder,
        ggufFiles,
        ggufBytes,
        freeBytes: stats.bavail * stats.bsize,
        totalBytes: stats.blocks * stats.bsize,
      };
    } catch {
      if (probe === "/" || probe === join(probe, "..")) break;
    }
  }
  return { folder, ggufFiles, ggufBytes, freeBytes: null, totalBytes: null };
}
