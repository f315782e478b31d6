import type { Context } from "../../core/context.js";
import { Message } from "../../messages/components/message.js";
import { ChatContextRequiredError } from "../errors/chat-context-required-error.js";
import { BaseSamplingStrategy, type RepairRequest, type RepairResult } from "./base-sampling-strategy.js";
import { describeFailures } from "./failure-feedback.js";
import type { SamplingHistory } from "./sampling-history.js";

/**
 * Repair by conversation: after a failed round, the failed sample stays in the chat and a user message
 * names the unmet requirements (with reasons) and asks again. Needs a chat context. On failure returns the
 * last sample, the one that had the most feedback.
 */
export class MultiTurnStrategy extends BaseSamplingStrategy {
  protected override checkContext(context: Context): void {
    if (!context.isChatContext)
      throw new ChatContextRequiredError(this.constructor.name, context.constructor.name);
  }

  protected repair<T>(request: RepairRequest<T>): RepairResult<T> {
    const failures = describeFailures(request.history.validations[request.baseIndex]!);
    const text =
      failures.length === 0
        ? "Your answer did not pass a check. Please try again."
        : `The following requirements have not been met:\n${failures.join("\n")}\nPlease try again to fulfill the requirements.`;
    return {
      action: new Message("user", text) as never,
      context: request.history.contexts[request.baseIndex]!,
    };
  }

  // -1 as in Mellea: the last sample, counted from the end (SamplingResult accepts negative indices).
  protected selectFromFailure<T>(_history: SamplingHistory<T>): number {
    return -1;
  }
}
