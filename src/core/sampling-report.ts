/**
 * How a pooled sampling run spent its budget: live samples, attempts, cancellations and tokens. Tokens are
 * counted from each sample's usage (the tokens its backend generated for it, including those decoded ahead
 * of the reader before a cancel landed), not from what the strategy read.
 */
export interface SamplingReport {
  /** The concurrencyBudget asked for. */
  readonly requestedConcurrency: number;
  /** Most samples live at once: the budget, capped by the backend's parallel sequences. */
  readonly concurrency: number;
  /** Why concurrency is below the request, in words; null when it is not. */
  readonly concurrencyCap: string | null;
  /** Most attempts the run could start (loopBudget × concurrencyBudget, or loopBudget × n). */
  readonly attemptLimit: number;
  /** Samples started. */
  readonly attempts: number;
  /** Samples that ran to their end and were validated. */
  readonly completed: number;
  /** Samples cancelled by a streaming requirement's fail. */
  readonly cancelledByValidation: number;
  /** Samples cancelled because their running score could no longer beat the best (monotone scores only). */
  readonly cancelledAsLosers: number;
  /** Samples cancelled because the run had its answer. */
  readonly abandoned: number;
  /** Highest number of samples live at once. */
  readonly peakLive: number;
  /** Attempts started up to and including the first sample that passed; null when none passed. */
  readonly attemptsUntilPass: number | null;
  /** Tokens generated over all samples. */
  readonly tokensGenerated: number;
  /** Tokens of samples that were cancelled (their text is thrown away). */
  readonly tokensDiscarded: number;
  /** Per sample in start order: milliseconds from its start to its first and to its last text delta. */
  readonly sampleTimings: ReadonlyArray<{ firstTokenMs: number | null; lastTokenMs: number | null }>;
}
