import { hasErrorMarker } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ScriptExhaustedError");

/** A ScriptedBackend was asked for more generations than it was given responses. */
export class ScriptExhaustedError extends Error {
  readonly [marker] = true;
  readonly callNumber: number;

  constructor(callNumber: number, responseCount: number) {
    super(
      `ScriptedBackend received generation ${callNumber} but was given only ${responseCount} response(s). ` +
        "Add responses to the script, or pass a function that answers every call.",
    );
    this.name = "ScriptExhaustedError";
    this.callNumber = callNumber;
  }

  static isInstance(error: unknown): error is ScriptExhaustedError {
    return hasErrorMarker(error, marker);
  }
}
