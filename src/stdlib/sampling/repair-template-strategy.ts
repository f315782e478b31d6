import { Instruction } from "../components/instruction.js";
import { BaseSamplingStrategy, type RepairRequest, type RepairResult } from "./base-sampling-strategy.js";
import { describeFailures } from "./failure-feedback.js";
import type { SamplingHistory } from "./sampling-history.js";

/**
 * After a failed round, resend the instruction with a repair note listing the requirements the best sample
 * of that round failed, with their reasons (Instruction.copyAndRepair). Actions that are not Instructions,
 * or failures of check-only requirements alone, are resent unchanged. On failure returns the first sample.
 */
export class RepairTemplateStrategy extends BaseSamplingStrategy {
  protected repair<T>(request: RepairRequest<T>): RepairResult<T> {
    const failures = describeFailures(request.history.validations[request.baseIndex]!);
    const lastAction = request.history.actions[request.baseIndex]!;
    if (!(lastAction instanceof Instruction) || failures.length === 0) {
      return { action: lastAction as never, context: request.originalContext };
    }
    const note = `The following requirements failed before:\n${failures.join("\n")}`;
    return { action: lastAction.copyAndRepair(note) as never, context: request.originalContext };
  }

  protected selectFromFailure<T>(_history: SamplingHistory<T>): number {
    return 0;
  }
}
