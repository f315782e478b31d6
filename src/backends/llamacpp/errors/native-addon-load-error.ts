import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.NativeAddonLoadError");

/** One place the loader looked for the addon or the llama.cpp libraries, and why it failed there. */
export interface NativeLoadAttempt {
  readonly path: string;
  readonly failure: string;
}

/** The native addon (or the llama.cpp libraries it links) could not be loaded. */
export class NativeAddonLoadError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  readonly attempts: readonly NativeLoadAttempt[];

  constructor(what: string, attempts: readonly NativeLoadAttempt[], remedy: string) {
    const tried = attempts.map((attempt) => `  - ${attempt.path}: ${attempt.failure}`).join("\n");
    super(`Could not load ${what}. Tried:\n${tried}\n${remedy}`);
    this.name = "NativeAddonLoadError";
    this.attempts = attempts;
  }

  static override isInstance(error: unknown): error is NativeAddonLoadError {
    return hasErrorMarker(error, marker);
  }
}
