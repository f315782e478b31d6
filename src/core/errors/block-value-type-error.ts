import { hasErrorMarker } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.BlockValueTypeError");

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** A CBlock (or a thunk's value) was given something other than a string. A TypeError, as the seed says. */
export class BlockValueTypeError extends TypeError {
  readonly [marker] = true;

  constructor(owner: string, received: unknown, allowNull: boolean) {
    super(
      `Expected a string${allowNull ? " or null" : ""} for ${owner}.value but received ${describe(received)}. ` +
        "Convert the content to text first (for example with JSON.stringify).",
    );
    this.name = "BlockValueTypeError";
  }

  static isInstance(error: unknown): error is BlockValueTypeError {
    return hasErrorMarker(error, marker);
  }
}
