export {
  BaseSamplingStrategy,
  type BaseSamplingStrategyOptions,
  type PooledPlan,
  type PooledRun,
  type RepairRequest,
  type RepairResult,
  type StrategySampleOptions,
} from "./base-sampling-strategy.js";
export { BestOfNStrategy, type BestOfNStrategyOptions, type SampleScore } from "./best-of-n-strategy.js";
export {
  BudgetForcingSamplingStrategy,
  type BudgetForcingSamplingStrategyOptions,
} from "./budget-forcing-sampling-strategy.js";
export { describeFailures } from "./failure-feedback.js";
export { MajorityVotingStrategy, type MajorityVotingStrategyOptions } from "./majority-voting-strategy.js";
export { MBRDRougeLStrategy, type MBRDRougeLStrategyOptions } from "./mbrd-rouge-l-strategy.js";
export { meanTokenLogprob } from "./mean-token-logprob.js";
export { MultiTurnStrategy } from "./multi-turn-strategy.js";
export {
  RejectionSamplingStrategy,
  type RejectionSamplingStrategyOptions,
} from "./rejection-sampling-strategy.js";
export { RepairTemplateStrategy } from "./repair-template-strategy.js";
export {
  generatedTokens,
  type PoolAttempt,
  type PoolAttemptState,
  runSamplePool,
  type SamplePoolOptions,
  type SamplePoolOutcome,
} from "./sample-pool.js";
export {
  allPassed,
  type DrawnSample,
  passedCount,
  SamplingHistory,
  type Validations,
} from "./sampling-history.js";
export { SamplingProgress } from "./sampling-progress.js";
export { ScoredSamplingResult } from "./scored-sampling-result.js";
export { ScoringSamplingStrategy, type ScoringSamplingStrategyOptions } from "./scoring-sampling-strategy.js";
export { exactMatchSimilarity, normalizeAnswer, rougeLSimilarity, type Similarity } from "./similarity.js";
export {
  type S2SolverMode,
  SOFAISamplingStrategy,
  type SOFAISamplingStrategyOptions,
  type SofaiFeedbackStrategy,
} from "./sofai-sampling-strategy.js";
export { type MonotoneSampleScore, sumTokenLogprob } from "./sum-token-logprob.js";
export {
  type BudgetForcingUsage,
  type ThinkBudgetForcingOptions,
  thinkBudgetForcing,
} from "./think-budget-forcing.js";
