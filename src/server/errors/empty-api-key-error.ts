import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.EmptyApiKeyError");

/**
 * An API key of "" was given. Every request would then match it with an empty Authorization header (or
 * none), so the server would look guarded and be open: refused rather than taken as "no key".
 */
export class EmptyApiKeyError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  /** `source` names where the key came from, in the caller's terms (`apiKey`, `--api-key`, `TESSERA_API_KEY`). */
  constructor(readonly source: string) {
    super(
      `${source} is empty, which would let every request in while the server looks guarded. ` +
        `Give a key, or leave ${source} out to serve without one.`,
    );
    this.name = "EmptyApiKeyError";
  }

  static override isInstance(error: unknown): error is EmptyApiKeyError {
    return hasErrorMarker(error, marker);
  }
}
