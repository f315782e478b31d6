import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ReleaseSourceError");

function describe(value: unknown): string {
  if (value === null) return "null";
  if (ArrayBuffer.isView(value)) return `a single ${value.constructor.name}`;
  return `a ${typeof value}`;
}

/** releaseLogitsRows was given something other than a generation's metadata or a list of rows. */
export class ReleaseSourceError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  constructor(received: unknown) {
    super(
      `releaseLogitsRows expects a generation's metadata (thunk.generation) or an array of rows ` +
        `(event.rawLogits.full, event.logits.full) but received ${describe(received)}. ` +
        "Pass a single row inside an array: [row]. Nothing was released.",
    );
    this.name = "ReleaseSourceError";
  }

  static override isInstance(error: unknown): error is ReleaseSourceError {
    return hasErrorMarker(error, marker);
  }
}
