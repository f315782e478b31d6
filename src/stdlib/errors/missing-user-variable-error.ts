import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.MissingUserVariableError");

/** A `{{name}}` placeholder in an instruction has no matching user variable. */
export class MissingUserVariableError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  readonly variableName: string;

  constructor(variableName: string, available: readonly string[]) {
    super(
      `The instruction uses {{${variableName}}} but no user variable named "${variableName}" was given ` +
        `(given: ${available.length === 0 ? "none" : available.join(", ")}). Add it to userVariables or remove the placeholder.`,
    );
    this.name = "MissingUserVariableError";
    this.variableName = variableName;
  }

  static override isInstance(error: unknown): error is MissingUserVariableError {
    return hasErrorMarker(error, marker);
  }
}
