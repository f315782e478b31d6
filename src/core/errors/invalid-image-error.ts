import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidImageError");

/** Image data that is not a usable PNG (bad base64, other bytes, too large), or an unusable image source. */
export class InvalidImageError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-media";

  constructor(problem: string, cause?: unknown) {
    super(
      `Invalid image: ${problem}. Pass a base64 PNG (optionally as a data URI), an http(s) URL, ` +
        "or image bytes through ImageBlock.fromImage().",
      { cause },
    );
    this.name = "InvalidImageError";
  }

  static override isInstance(error: unknown): error is InvalidImageError {
    return hasErrorMarker(error, marker);
  }
}
