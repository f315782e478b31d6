import { existsSync } from "node:fs";
import { join } from "node:path";
import { findPackageFolder } from "../../../support/package-folders.js";

/** A GPU build of ggml that node-llama-cpp ships for this platform. */
export interface GpuBackendCandidate {
  readonly backend: string;
  readonly packageName: string;
  /** Where its library would be once the package is installed. */
  readonly libraryPath: (packageFolder: string) => string;
}

/**
 * In the order node-llama-cpp tries them (dist/bindings/Llama.js): its CUDA package (built against CUDA
 * 13), then the "fallback" folder of @node-llama-cpp/<platform>-cuda-ext (the same ggml built against
 * CUDA 12, for drivers older than CUDA 13 supports), then Vulkan.
 */
export function gpuBackendCandidates(): readonly GpuBackendCandidate[] {
  const platform = `${process.platform}-${process.arch}`;
  const suffix = process.platform === "win32" ? ".dll" : ".so";
  const prefix = process.platform === "win32" ? "" : "lib";
  return [
    {
      backend: "CUDA 13",
      packageName: `@node-llama-cpp/${platform}-cuda`,
      libraryPath: (folder) => join(folder, "bins", `${platform}-cuda`, `${prefix}ggml-cuda${suffix}`),
    },
    {
      backend: "CUDA 12",
      packageName: `@node-llama-cpp/${platform}-cuda-ext`,
      libraryPath: (folder) =>
        join(folder, "bins", `${platform}-cuda`, "fallback", `${prefix}ggml-cuda${suffix}`),
    },
    {
      backend: "Vulkan",
      packageName: `@node-llama-cpp/${platform}-vulkan`,
      libraryPath: (folder) => join(folder, "bins", `${platform}-vulkan`, `${prefix}ggml-vulkan${suffix}`),
    },
  ];
}

/** The candidate's library path, or why there is none ("not installed", "missing"). */
export function locateCandidate(
  candidate: GpuBackendCandidate,
): { readonly path: string } | { readonly path: string; readonly failure: string } {
  const folder = findPackageFolder(candidate.packageName);
  if (folder === undefined) {
    return { path: candidate.packageName, failure: `npm package ${candidate.packageName} is not installed` };
  }
  const path = candidate.libraryPath(folder);
  if (!existsSync(path)) return { path, failure: `${path} is missing from ${candidate.packageName}` };
  return { path };
}
