import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidAudioError");

/** Audio data that cannot be used: bad base64, unknown format, or an unreadable file. */
export class InvalidAudioError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-media";

  constructor(problem: string, cause?: unknown) {
    super(`Invalid audio: ${problem}.`, { cause });
    this.name = "InvalidAudioError";
  }

  static override isInstance(error: unknown): error is InvalidAudioError {
    return hasErrorMarker(error, marker);
  }
}
