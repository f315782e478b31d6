import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.UnsupportedInputError");

/** The input holds something this backend cannot send to its model (images or audio to a text model). */
export class UnsupportedInputError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unsupported-input";

  readonly input: string;

  constructor(input: string, reason: string) {
    super(
      `The prompt contains ${input}, but ${reason}. Remove them, or use a backend whose capabilities ` +
        `include ${input} (backend.capabilities). Nothing was generated.`,
    );
    this.name = "UnsupportedInputError";
    this.input = input;
  }

  static override isInstance(error: unknown): error is UnsupportedInputError {
    return hasErrorMarker(error, marker);
  }
}
