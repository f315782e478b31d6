import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.UnknownHostError");

/** `serve --host` names a host this machine cannot resolve to an address. */
export class UnknownHostError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-option";
  readonly host: string;

  constructor(host: string, cause: unknown) {
    super(
      `Cannot listen on ${host}: no such host name or address. Pass another --host (127.0.0.1 for this machine only, 0.0.0.0 for every interface).`,
      { cause },
    );
    this.name = "UnknownHostError";
    this.host = host;
  }

  static override isInstance(error: unknown): error is UnknownHostError {
    return hasErrorMarker(error, marker);
  }
}
