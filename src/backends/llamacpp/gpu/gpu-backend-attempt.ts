import type { NativeLoadAttempt } from "../errors/native-addon-load-error.js";

/** How one GPU backend was tried, and why it does not serve the model (when it does not). */
export interface GpuBackendAttempt extends NativeLoadAttempt {
  /** "CUDA 13", "CUDA 12", "Vulkan". */
  readonly backend: string;
  /** The npm package that ships it. */
  readonly packageName: string;
  readonly loaded: boolean;
  /** Runtime libraries the loader cannot find (empty when none is missing or it could not be told). */
  readonly missingLibraries: readonly string[];
  /** The typed error behind `failure` (GpuRuntimeLibraryMissingError for missing libraries). */
  readonly error?: Error;
}
