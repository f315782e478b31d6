// Base class of every error raised while reading, writing or synthesizing GGUF files. Each subclass
// carries its own `Symbol.for` marker so `isInstance` works across two copies of this package. Most are a
// file that cannot be read as a model ("invalid-input"); subclasses that are not say their own kind.
import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = "tessera.gguf.GgufError";
const symbol = Symbol.for(marker);

export class GgufError extends TesseraError {
  readonly [symbol] = true;
  override readonly kind: ErrorKind = "invalid-input";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GgufError";
  }

  static override isInstance(error: unknown): error is GgufError {
    return GgufError.hasMarker(error, marker);
  }

  /** True when `error` is an object carrying the `Symbol.for(markerName)` brand. */
  protected static hasMarker(error: unknown, markerName: string): boolean {
    return hasErrorMarker(error, Symbol.for(markerName));
  }
}
