import type { ErrorKind } from "./error-kind.js";

const marker = Symbol.for("tessera.error");

/**
 * Base of every error tessera throws on purpose. Checks use `isInstance` (a `Symbol.for` marker) rather
 * than `instanceof`, so they keep working when two copies of the package end up in one process.
 * Each subclass states its `kind` (see ErrorKind), which is what surfaces such as the HTTP server act on.
 */
export class TesseraError extends Error {
  readonly [marker] = true;

  /** What kind of failure this is; subclasses override it, a bare TesseraError is "internal". */
  readonly kind: ErrorKind = "internal";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TesseraError";
  }

  static isInstance(error: unknown): error is TesseraError {
    return hasErrorMarker(error, marker);
  }
}

/** True when `error` carries the given `Symbol.for` marker (set by an error class's private field). */
export function hasErrorMarker(error: unknown, errorMarker: symbol): boolean {
  return typeof error === "object" && error !== null && errorMarker in error;
}
