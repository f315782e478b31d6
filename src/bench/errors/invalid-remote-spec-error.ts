import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";
import { redactCredentialsIn, redactedRemoteSpec } from "../redact-url-credentials.js";

const marker = Symbol.for("tessera.error.InvalidRemoteSpecError");

/** A --remote (or $TESSERA_BENCH_REMOTES) entry cannot be used. */
export class InvalidRemoteSpecError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-option";
  /** The entry as given, its URL's user and password shown as `***` (the message goes to logs). */
  readonly spec: string;

  constructor(spec: string, problem: string) {
    const shown = redactedRemoteSpec(spec);
    super(
      `Invalid remote "${shown}": ${redactCredentialsIn(problem)}. Write it as <base URL>,<model>[,<name of the API key variable>], ` +
        'for example "https://api.openai.com/v1,gpt-4o-mini,OPENAI_API_KEY"; a comma in a password is written %2C.',
    );
    this.name = "InvalidRemoteSpecError";
    this.spec = shown;
  }

  static override isInstance(error: unknown): error is InvalidRemoteSpecError {
    return hasErrorMarker(error, marker);
  }
}
