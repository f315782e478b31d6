import { BaseSamplingStrategy, type RepairRequest, type RepairResult } from "./base-sampling-strategy.js";
import type { SamplingHistory } from "./sampling-history.js";

/** Resample the same action in the same context until a sample passes; on failure return the first sample. */
export class RejectionSamplingStrategy extends BaseSamplingStrategy {
  protected repair<T>(request: RepairRequest<T>): RepairResult<T> {
    return { action: request.originalAction, context: request.originalContext };
  }

  protected selectFromFailure<T>(_history: SamplingHistory<T>): number {
    return 0;
  }
}
