import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ComponentParseError");

/** A component's parse step threw; `cause` holds what it threw, `componentName` which component failed. */
export class ComponentParseError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-output";
  readonly componentName: string;

  constructor(componentName: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `${componentName} could not parse the model output: ${reason}. ` +
        "Check the output (thunk.value) against what the component expects, or constrain generation with a format.",
      { cause },
    );
    this.name = "ComponentParseError";
    this.componentName = componentName;
  }

  static override isInstance(error: unknown): error is ComponentParseError {
    return hasErrorMarker(error, marker);
  }
}
