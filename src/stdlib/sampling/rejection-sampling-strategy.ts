import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { SampleActionType, SamplingResult } from "../../core/sampling-result.js";
import type { SampleRun } from "../../core/sampling-strategy.js";
import { uniqueRequirements } from "../requirements/requirement-helpers.js";
import { streamingRequirements } from "../requirements/stream-validation.js";
import {
  BaseSamplingStrategy,
  type BaseSamplingStrategyOptions,
  type RepairRequest,
  type RepairResult,
} from "./base-sampling-strategy.js";
import { SamplingHistory } from "./sampling-history.js";

export interface RejectionSamplingStrategyOptions extends BaseSamplingStrategyOptions {
  /**
   * Run samples as a pool instead of rounds: `concurrencyBudget` live at once (capped by the backend's
   * parallel sequences), a fresh one started as soon as one ends or is cancelled, at most loopBudget ×
   * concurrencyBudget in all, and the first to pass (in completion order) wins. Default: on when a
   * requirement checks samples while they stream (streamValidate), off otherwise.
   */
  pooled?: boolean;
}

/** Resample the same action in the same context until a sample passes; on failure return the first sample. */
export class RejectionSamplingStrategy extends BaseSamplingStrategy {
  readonly pooled: boolean | null;

  constructor(options: RejectionSamplingStrategyOptions = {}) {
    super(options);
    this.pooled = options.pooled ?? null;
  }

  protected repair<T>(request: RepairRequest<T>): RepairResult<T> {
    return { action: request.originalAction, context: request.originalContext };
  }

  protected selectFromFailure<T>(_history: SamplingHistory<T>): number {
    return 0;
  }

  protected override async doSample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<SamplingResult<T>> {
    const requirements = uniqueRequirements(run.requirements);
    if (!(this.pooled ?? streamingRequirements(requirements).length > 0)) {
      return super.doSample(action, context, backend, run);
    }
    const history = new SamplingHistory<T>();
    try {
      const { report } = await this.samplePooled({
        action,
        context,
        backend,
        run,
        requirements,
        history,
        concurrency: this.concurrencyBudget,
        attemptLimit: run.loopBudget * this.concurrencyBudget,
        wantsMore: () => true,
        stopAfter: (current) => current.passingIndices().length > 0,
      });
      const passing = history.passingIndices();
      if (passing.length > 0) return history.toResult(passing[0]!, true, report);
      return history.toResult(history.length === 0 ? 0 : this.selectFromFailure(history), false, report);
    } catch (error) {
      throw this.abortError(error, run, history);
    }
  }
}
