import type { ErrorKind } from "../../core/errors/error-kind.js";
import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufWriteError";
const symbol = Symbol.for(marker);

/** The writer was given something it cannot encode (a value out of range, tensor bytes of the wrong size). */
export class GgufWriteError extends GgufError {
  readonly [symbol] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  constructor(problem: string, options?: { cause?: unknown }) {
    super(`Cannot write GGUF file: ${problem}.`, options);
    this.name = "GgufWriteError";
  }

  static override isInstance(error: unknown): error is GgufWriteError {
    return GgufError.hasMarker(error, marker);
  }
}
