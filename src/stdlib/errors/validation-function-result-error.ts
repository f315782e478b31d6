import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ValidationFunctionResultError");

/** A validation function returned something other than a boolean, a [boolean, reason] pair or a ValidationResult. */
export class ValidationFunctionResultError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  readonly received: unknown;

  constructor(requirementDescription: string | null, received: unknown) {
    super(
      `The validation function of requirement ${JSON.stringify(requirementDescription ?? "(no description)")} returned ${describe(received)}. ` +
        "Return true/false, a [passed, reason] pair, or a ValidationResult.",
    );
    this.name = "ValidationFunctionResultError";
    this.received = received;
  }

  static override isInstance(error: unknown): error is ValidationFunctionResultError {
    return hasErrorMarker(error, marker);
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "Object"})`;
  return `${typeof value} ${String(value)}`;
}
