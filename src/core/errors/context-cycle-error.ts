import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ContextCycleError");

/** Walking a context's linked list reached the same node twice: the list was corrupted into a cycle. */
export class ContextCycleError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "internal";
  readonly depth: number;

  constructor(depth: number) {
    super(
      `The context's history contains a cycle (node ${depth} steps back was already visited). ` +
        "Contexts are immutable linked lists; build new ones with add() instead of editing previous nodes.",
    );
    this.name = "ContextCycleError";
    this.depth = depth;
  }

  static override isInstance(error: unknown): error is ContextCycleError {
    return hasErrorMarker(error, marker);
  }
}
