import { hasErrorMarker } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.NotASpanError");

/** blockify() was given something that is neither a string, a CBlock, a Component nor a ModelOutputThunk. */
export class NotASpanError extends TypeError {
  readonly [marker] = true;

  constructor(received: unknown) {
    const kind =
      received === null
        ? "null"
        : typeof received === "object"
          ? received.constructor?.name
          : typeof received;
    super(
      `Expected a string, CBlock, Component or ModelOutputThunk but received ${kind}. ` +
        "Wrap other values in a CBlock (new CBlock(String(value))) or a Component.",
    );
    this.name = "NotASpanError";
  }

  static isInstance(error: unknown): error is NotASpanError {
    return hasErrorMarker(error, marker);
  }
}
