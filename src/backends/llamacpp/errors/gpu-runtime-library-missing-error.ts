import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";
import { runtimeLibraryProvider } from "../gpu/runtime-library-providers.js";

const marker = Symbol.for("tessera.error.GpuRuntimeLibraryMissingError");

/** A GPU backend library of node-llama-cpp needs shared libraries that this system does not have. */
export class GpuRuntimeLibraryMissingError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  /** The backend, e.g. "CUDA 13". */
  readonly backend: string;
  /** The backend library that needs them. */
  readonly library: string;
  /** The missing file names, e.g. ["libcudart.so.13", "libcublas.so.13"]. */
  readonly missingLibraries: readonly string[];

  constructor(backend: string, library: string, missingLibraries: readonly string[]) {
    const lines = missingLibraries
      .map((name) => `  - ${name}: from ${runtimeLibraryProvider(name)}`)
      .join("\n");
    super(
      `The ${backend} backend (${library}) cannot load: the dynamic loader does not find ` +
        `${missingLibraries.join(", ")}.\n${lines}\n` +
        "Install them, then make them findable: system-wide (ldconfig) or with LD_LIBRARY_PATH set before " +
        "node starts (the library's RUNPATH is only its own folder). `tessera doctor` shows every backend.",
    );
    this.name = "GpuRuntimeLibraryMissingError";
    this.backend = backend;
    this.library = library;
    this.missingLibraries = missingLibraries;
  }

  static override isInstance(error: unknown): error is GpuRuntimeLibraryMissingError {
    return hasErrorMarker(error, marker);
  }
}
