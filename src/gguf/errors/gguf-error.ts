// Base class of every error raised while reading, writing or synthesizing GGUF files. Each subclass
// carries its own `Symbol.for` marker so `isInstance` works across two copies of this package.
import { hasErrorMarker } from "../../core/errors/tessera-error.js";

const marker = "tessera.gguf.GgufError";
const symbol = Symbol.for(marker);

export class GgufError extends Error {
  readonly [symbol] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GgufError";
  }

  static isInstance(error: unknown): error is GgufError {
    return GgufError.hasMarker(error, marker);
  }

  /** True when `error` is an object carrying the `Symbol.for(markerName)` brand. */
  protected static hasMarker(error: unknown, markerName: string): boolean {
    return hasErrorMarker(error, Symbol.for(markerName));
  }
}
