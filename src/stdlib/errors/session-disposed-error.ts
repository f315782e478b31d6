import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.SessionDisposedError");

/** A session was used after it was disposed. */
export class SessionDisposedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  readonly methodName: string;

  constructor(methodName: string) {
    super(
      `session.${methodName}() was called after the session was disposed. Start a new session with startSession().`,
    );
    this.name = "SessionDisposedError";
    this.methodName = methodName;
  }

  static override isInstance(error: unknown): error is SessionDisposedError {
    return hasErrorMarker(error, marker);
  }
}
