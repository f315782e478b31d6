import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidApiKeyError");

/**
 * An API key the server cannot use as given: empty (every request's empty or missing Authorization header
 * would match it, so the server would look guarded and be open), not a string, or holding what a client
 * cannot send intact (HTTP trims spaces at a header's ends; only visible ASCII arrives byte for byte).
 */
export class InvalidApiKeyError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  /** `source` names where the key came from, in the caller's terms (`apiKey`, `--api-key`, `TESSERA_API_KEY`). */
  constructor(
    readonly source: string,
    problem: string,
  ) {
    super(`${source} ${problem}`);
    this.name = "InvalidApiKeyError";
  }

  static override isInstance(error: unknown): error is InvalidApiKeyError {
    return hasErrorMarker(error, marker);
  }
}
