import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.BenchStreamError");

/**
 * A benchmark target's stream went wrong (HTTP status, malformed SSE, no [DONE], an error event).
 * Benchmarks count it as a failed run, never as a fast one; `received` keeps the text that came first.
 */
export class BenchStreamError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-output";
  readonly target: string;
  readonly received: string;

  constructor(
    target: string,
    problem: string,
    received = "",
    advice = "Check that the server speaks the OpenAI streaming API at that URL and model.",
  ) {
    // A problem quoting a server's message may end with its own period.
    super(`${target}: ${problem.replace(/\.+$/, "")}. ${advice}`);
    this.name = "BenchStreamError";
    this.target = target;
    this.received = received;
  }

  static override isInstance(error: unknown): error is BenchStreamError {
    return hasErrorMarker(error, marker);
  }
}
