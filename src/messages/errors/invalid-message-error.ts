import { z } from "zod";
import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidMessageError");

/**
 * A chat message, content chunk or OpenAI payload did not match its schema. `issues` are zod's
 * issues as data (`code`, `path`, `message`), so callers such as the HTTP server can turn them
 * into a 400 body without parsing the message text.
 */
export class InvalidMessageError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-input";
  readonly what: string;
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(what: string, error: z.ZodError) {
    super(
      `Invalid ${what}:\n${z.prettifyError(error)}\nFix the field(s) at the path(s) shown above and try again.`,
      { cause: error },
    );
    this.name = "InvalidMessageError";
    this.what = what;
    this.issues = error.issues;
  }

  static override isInstance(error: unknown): error is InvalidMessageError {
    return hasErrorMarker(error, marker);
  }
}
