import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";
import type { GpuBackendAttempt } from "../gpu/gpu-backend-attempt.js";

const marker = Symbol.for("tessera.error.GpuUnavailableError");

/** `requireGpu` was set and no GPU backend could serve the model. */
export class GpuUnavailableError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  readonly attempts: readonly GpuBackendAttempt[];

  constructor(attempts: readonly GpuBackendAttempt[]) {
    const tried = attempts.map((attempt) => `  - ${attempt.backend}: ${attempt.failure}`).join("\n");
    super(
      `No GPU backend could be loaded, and requireGpu is set. Tried:\n${tried}\n` +
        "Fix the first one that applies to your GPU, or drop requireGpu to run on the CPU. `tessera doctor` shows the same list.",
    );
    this.name = "GpuUnavailableError";
    this.attempts = attempts;
  }

  static override isInstance(error: unknown): error is GpuUnavailableError {
    return hasErrorMarker(error, marker);
  }
}
