import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ServerBusyError");

/** Every parallel slot is taken and the wait queue is full: the request is refused (HTTP 503). */
export class ServerBusyError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "busy";

  readonly parallel: number;
  readonly queue: number;

  constructor(parallel: number, queue: number) {
    super(
      `The server is at capacity: ${parallel} generations running and ${queue} waiting. ` +
        "Retry after a moment, or start tessera serve with a larger --parallel or --queue.",
    );
    this.name = "ServerBusyError";
    this.parallel = parallel;
    this.queue = queue;
  }

  static override isInstance(error: unknown): error is ServerBusyError {
    return hasErrorMarker(error, marker);
  }
}
