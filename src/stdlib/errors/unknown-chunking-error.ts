import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.UnknownChunkingError");

/** A chunking strategy was named that does not exist. */
export class UnknownChunkingError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "not-found";

  readonly chunking: string;

  constructor(chunking: string, known: readonly string[]) {
    super(
      `There is no chunking strategy named "${chunking}". Use one of ${known.map((name) => `"${name}"`).join(", ")}, ` +
        "or pass an object with split() and flush().",
    );
    this.name = "UnknownChunkingError";
    this.chunking = chunking;
  }

  static override isInstance(error: unknown): error is UnknownChunkingError {
    return hasErrorMarker(error, marker);
  }
}
