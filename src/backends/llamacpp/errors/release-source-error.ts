import { classNameOf } from "../../../core/errors/class-name-of.js";
import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ReleaseSourceError");

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (ArrayBuffer.isView(value)) return `a single ${value.constructor.name}`;
  if (typeof value !== "object") return `a ${typeof value}`;
  if (isTrace(value)) return "a logits trace";
  return classNameOf(value);
}

function isTrace(value: unknown): boolean {
  return typeof value === "object" && value !== null && Array.isArray((value as { steps?: unknown }).steps);
}

// What to pass instead, for the mistakes one can tell apart.
function hint(value: unknown): string {
  if (ArrayBuffer.isView(value)) return "Pass a single row inside an array: [row].";
  if (typeof value === "object" && value !== null && "generation" in value) {
    return "Pass the thunk's metadata: releaseLogitsRows(thunk.generation).";
  }
  if (isTrace(value)) return "Pass the whole generation: releaseLogitsRows(thunk.generation).";
  if (
    Array.isArray(value) &&
    value.some((entry) => typeof entry === "object" && entry !== null && !ArrayBuffer.isView(entry))
  ) {
    return "Pass thunk.generation itself, or the rows (step.full) in a list.";
  }
  return "Pass thunk.generation, or an array of rows.";
}

/** A Proxy's trap may throw while the message reads the value: the error must still be made. */
function guarded(read: (value: unknown) => string, value: unknown, otherwise: string): string {
  try {
    return read(value);
  } catch {
    return otherwise;
  }
}

/** releaseLogitsRows was given something other than a generation's metadata or a list of rows. */
export class ReleaseSourceError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  constructor(received: unknown, detail?: string) {
    const advice = guarded(hint, received, "");
    super(
      `releaseLogitsRows expects a generation's metadata (thunk.generation) or an iterable of rows ` +
        `(event.rawLogits.full, event.logits.full) but received ${guarded(describe, received, "an object")}` +
        `${detail === undefined ? "" : ` (${detail})`}. ${advice === "" ? "" : `${advice} `}Nothing was released.`,
    );
    this.name = "ReleaseSourceError";
  }

  static override isInstance(error: unknown): error is ReleaseSourceError {
    return hasErrorMarker(error, marker);
  }
}
