import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidModelOptionError");

/** A model option has a value outside its allowed range or of the wrong type. */
export class InvalidModelOptionError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly optionName: string;
  readonly received: unknown;

  constructor(optionName: string, received: unknown, expectation: string) {
    super(
      `Invalid value for model option "${optionName}": received ${JSON.stringify(received) ?? String(received)}; ${expectation}.`,
    );
    this.name = "InvalidModelOptionError";
    this.optionName = optionName;
    this.received = received;
  }

  static override isInstance(error: unknown): error is InvalidModelOptionError {
    return hasErrorMarker(error, marker);
  }
}
