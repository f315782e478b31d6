import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ContextTypeMismatchError");

/** Any class, such as a Context subclass; only its name is used. */
type ContextClassLike = abstract new (...args: never[]) => unknown;

/** A function returned a different Context subtype than it was given (the context type flowing out must equal the one flowing in). */
export class ContextTypeMismatchError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-argument";
  readonly inputType: string;
  readonly outputType: string;

  /** Takes the context classes (or their names) that went in and came out. */
  constructor(inputType: string | ContextClassLike, outputType: string | ContextClassLike) {
    inputType = typeof inputType === "string" ? inputType : inputType.name;
    outputType = typeof outputType === "string" ? outputType : outputType.name;
    super(
      `Expected the returned context to be a ${inputType} (the type passed in) but received a ${outputType}. ` +
        "Return the same context type, or pass allowContextTypeChange: true if the change is deliberate.",
    );
    this.name = "ContextTypeMismatchError";
    this.inputType = inputType;
    this.outputType = outputType;
  }

  static override isInstance(error: unknown): error is ContextTypeMismatchError {
    return hasErrorMarker(error, marker);
  }
}
