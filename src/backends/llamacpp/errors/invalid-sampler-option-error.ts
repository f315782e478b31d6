import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidSamplerOptionError");

/** A generation, context or model option has the wrong type, is out of range, or is unknown. */
export class InvalidSamplerOptionError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly optionName: string;
  readonly received: unknown;
  /**
   * The bound the value passed, when it is a size limit (a grammar's bytes or nesting), so a caller that
   * speaks other terms (tessera serve naming the schema that made the grammar) can state it in its own.
   */
  declare readonly limit?: { readonly most: number; readonly unit: string };

  constructor(
    optionName: string,
    expected: string,
    received: unknown,
    limit?: { readonly most: number; readonly unit: string },
  ) {
    super(`Expected ${expected} for ${optionName} but received ${describe(received)}. Nothing was started.`);
    this.name = "InvalidSamplerOptionError";
    this.optionName = optionName;
    this.received = received;
    // Only where there is one: every other option error stays as it was (no `limit: undefined` in logs).
    if (limit !== undefined) this.limit = limit;
  }

  static override isInstance(error: unknown): error is InvalidSamplerOptionError {
    return hasErrorMarker(error, marker);
  }
}

function describe(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `a ${value.constructor?.name ?? typeof value}`;
}
