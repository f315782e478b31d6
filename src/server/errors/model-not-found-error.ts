import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ModelNotFoundError");

/** A request for a model this server does not serve (HTTP 404 `model_not_found`, as OpenAI answers). */
export class ModelNotFoundError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "not-found";

  readonly model: string;
  readonly served: readonly string[];

  constructor(model: string, served: readonly string[]) {
    super(
      `The model "${model}" is not served here. Send "model": ${served.map((name) => `"${name}"`).join(" or ")} ` +
        "(the server's operator can accept other names with `tessera serve --alias NAME`).",
    );
    this.name = "ModelNotFoundError";
    this.model = model;
    this.served = served;
  }

  static override isInstance(error: unknown): error is ModelNotFoundError {
    return hasErrorMarker(error, marker);
  }
}
