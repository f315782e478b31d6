import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidRemoteSpecError");

/** A --remote (or $TESSERA_BENCH_REMOTES) entry cannot be used. */
export class InvalidRemoteSpecError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-option";
  readonly spec: string;

  constructor(spec: string, problem: string) {
    super(
      `Invalid remote "${spec}": ${problem}. Write it as <base URL>,<model>[,<name of the API key variable>], ` +
        'for example "https://api.openai.com/v1,gpt-4o-mini,OPENAI_API_KEY".',
    );
    this.name = "InvalidRemoteSpecError";
    this.spec = spec;
  }

  static override isInstance(error: unknown): error is InvalidRemoteSpecError {
    return hasErrorMarker(error, marker);
  }
}
