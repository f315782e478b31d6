/**
 * The OpenTelemetry names tessera emits. GenAI names follow the semantic conventions v1.41.0 (GenAI status:
 * development), https://github.com/open-telemetry/semantic-conventions/tree/v1.41.0/docs/gen-ai ; they are
 * written out here rather than imported from @opentelemetry/semantic-conventions, whose GenAI names live in
 * its unstable "incubating" entry point and move between releases.
 */
export const genAiSemconvVersion = "1.41.0";

/** Scope names, after Mellea's two tracers (mellea.application, mellea.backend). */
export const applicationScope = "tessera.application";
export const backendScope = "tessera.backend";

export const GenAi = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestTemperature: "gen_ai.request.temperature",
  requestTopP: "gen_ai.request.top_p",
  requestTopK: "gen_ai.request.top_k",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestSeed: "gen_ai.request.seed",
  requestStream: "gen_ai.request.stream",
  outputType: "gen_ai.output.type",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
} as const;

export const GenAiMetric = {
  operationDuration: "gen_ai.client.operation.duration",
  tokenUsage: "gen_ai.client.token.usage",
  timeToFirstChunk: "gen_ai.client.operation.time_to_first_chunk",
} as const;

/** Tessera's own attributes, named after Mellea's (mellea.sampling.*, mellea.validation.*). */
export const Tessera = {
  actionType: "tessera.action_type",
  cancelled: "tessera.cancelled",
  samplingStrategyType: "tessera.sampling.strategy_type",
  samplingLoopBudget: "tessera.sampling.loop_budget",
  samplingRequirementCount: "tessera.sampling.requirement_count",
  samplingSuccess: "tessera.sampling.success",
  samplingIterationsUsed: "tessera.sampling.iterations_used",
  samplingFailureReason: "tessera.sampling.failure_reason",
  validationRequirementCount: "tessera.validation.requirement_count",
  validationPassed: "tessera.validation.passed",
  validationPassedCount: "tessera.validation.passed_count",
  validationFailedCount: "tessera.validation.failed_count",
} as const;

/** The span names, as Mellea names them. */
export const SpanName = {
  sampling: "sampling",
  validation: "validation",
} as const;

/** The explicit bucket boundaries the conventions advise for each histogram. */
export const durationBuckets = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
export const chunkTimeBuckets = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
export const tokenBuckets = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
