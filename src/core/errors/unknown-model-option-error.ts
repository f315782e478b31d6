import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.UnknownModelOptionError");

/** A model option name that no layer understands (a typo, or an option of another backend). */
export class UnknownModelOptionError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly optionNames: readonly string[];
  readonly validOptionNames: readonly string[];

  constructor(optionNames: readonly string[], validOptionNames: readonly string[]) {
    const plural = optionNames.length > 1 ? "s" : "";
    super(
      `Unknown model option${plural} ${optionNames.map((name) => `"${name}"`).join(", ")}. ` +
        `Valid options are: ${validOptionNames.join(", ")}.`,
    );
    this.name = "UnknownModelOptionError";
    this.optionNames = optionNames;
    this.validOptionNames = validOptionNames;
  }

  static override isInstance(error: unknown): error is UnknownModelOptionError {
    return hasErrorMarker(error, marker);
  }
}
