import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ChatContextRequiredError");

/** A strategy that converses with the model (MultiTurnStrategy) was given a context that keeps no history. */
export class ChatContextRequiredError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  readonly strategyName: string;

  constructor(strategyName: string, contextName: string) {
    super(
      `${strategyName} appends a user turn naming the unmet requirements, so it needs a chat context, but was given a ${contextName}. ` +
        "Pass a ChatContext, or use RepairTemplateStrategy with a SimpleContext.",
    );
    this.name = "ChatContextRequiredError";
    this.strategyName = strategyName;
  }

  static override isInstance(error: unknown): error is ChatContextRequiredError {
    return hasErrorMarker(error, marker);
  }
}
