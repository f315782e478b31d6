// Public names of the core. Everything here is free of backends and of other tessera layers.

export { AbstractTool, type JsonTool } from "./abstract-tool.js";
export type {
  Backend,
  BackendCapabilities,
  GenerateAction,
  GenerateOptions,
  GenerateResult,
} from "./backend.js";
export { BaseBackend, type BaseBackendOptions, type ResolvedGenerateOptions } from "./base-backend.js";
export { BoundedChunkQueue } from "./bounded-chunk-queue.js";
export { CBlock, type CBlockOptions } from "./cblock.js";
export type { ChunkingStrategy } from "./chunking-strategy.js";
export { Component } from "./component.js";
export { ComputedModelOutputThunk } from "./computed-model-output-thunk.js";
export { Context } from "./context.js";
export { ContextTurn } from "./context-turn.js";
export { BlockValueTypeError } from "./errors/block-value-type-error.js";
export { ComponentParseError } from "./errors/component-parse-error.js";
export { ComputedThunkInvariantError } from "./errors/computed-thunk-invariant-error.js";
export { ContextCycleError } from "./errors/context-cycle-error.js";
export { ContextOverflowError } from "./errors/context-overflow-error.js";
export { ContextTypeMismatchError } from "./errors/context-type-mismatch-error.js";
export type { ErrorKind } from "./errors/error-kind.js";
export { GenerationAbortedError } from "./errors/generation-aborted-error.js";
export { GenerationCancelledError } from "./errors/generation-cancelled-error.js";
export { InvalidAudioError } from "./errors/invalid-audio-error.js";
export { InvalidContextNodeError } from "./errors/invalid-context-node-error.js";
export { InvalidImageError } from "./errors/invalid-image-error.js";
export { InvalidLoopBudgetError } from "./errors/invalid-loop-budget-error.js";
export { InvalidModelOptionError } from "./errors/invalid-model-option-error.js";
export { MediaDownloadError, type MediaDownloadFailure } from "./errors/media-download-error.js";
export { NoSuchToolError } from "./errors/no-such-tool-error.js";
export { NotASpanError } from "./errors/not-a-span-error.js";
export { ProviderFieldsTargetError } from "./errors/provider-fields-target-error.js";
export { SamplingResultIndexError } from "./errors/sampling-result-index-error.js";
export { TesseraError } from "./errors/tessera-error.js";
export { ThunkAlreadyComputedError } from "./errors/thunk-already-computed-error.js";
export { ThunkAlreadyIteratedError } from "./errors/thunk-already-iterated-error.js";
export { ThunkNotStartedError } from "./errors/thunk-not-started-error.js";
export { ThunkProducerError } from "./errors/thunk-producer-error.js";
export { ThunkSourceError } from "./errors/thunk-source-error.js";
export { ToolArgumentsError } from "./errors/tool-arguments-error.js";
export { UnknownModelOptionError } from "./errors/unknown-model-option-error.js";
export { UnsupportedInputError } from "./errors/unsupported-input-error.js";
export { GenerateLog } from "./generate-log.js";
export { GenerateType } from "./generate-type.js";
export { GenerationMetadata, type GenerationTimings, type TokenUsage } from "./generation-metadata.js";
export {
  defaultHookRegistry,
  type HookEvents,
  type HookHandler,
  type HookName,
  HookRegistry,
} from "./hooks.js";
export type { LogitsAlternative, LogitsStep, LogitsTrace, SamplerStage } from "./logits-trace.js";
export { AudioBlock, type AudioBlockOptions, audioLimits } from "./media/audio-block.js";
export { AudioUrlBlock, type AudioUrlBlockOptions, clearAudioUrlCache } from "./media/audio-url-block.js";
export { detectAudioFormat } from "./media/detect-audio-format.js";
export { ImageBlock, type ImageBlockOptions, type ImageSource, imageLimits } from "./media/image-block.js";
export { clearImageUrlCache, ImageUrlBlock, type ImageUrlBlockOptions } from "./media/image-url-block.js";
export { type MakeImageBlockOptions, makeImageBlock } from "./media/make-image-block.js";
export { getAudioFromComponent, getImagesFromComponent } from "./media/media-from-component.js";
export {
  type Download,
  type DownloadOptions,
  defaultDownloadLimits,
  downloadBytes,
} from "./media/safe-download.js";
export {
  extendModelOptionsSchema,
  type LogitsRequest,
  type ModelOptions,
  mergeModelOptions,
  modelOptionsSchema,
  modelOptionsShape,
  validateModelOptions,
} from "./model-options.js";
export {
  type ConsumeOptions,
  ModelOutputThunk,
  type ModelOutputThunkOptions,
} from "./model-output-thunk.js";
export { ModelToolCall } from "./model-tool-call.js";
export type { RawProviderResponse } from "./raw-provider-response.js";
export {
  PartialValidationResult,
  type PartialValidationState,
  type Requirement,
  type StreamPartial,
  type ValidateOptions,
  ValidationResult,
  type ValidationResultOptions,
} from "./requirement.js";
export type { SamplingReport } from "./sampling-report.js";
export { type SampleActionType, SamplingResult, type SamplingResultInit } from "./sampling-result.js";
export {
  type SampleOptions,
  type SampleRun,
  SamplingStrategy,
  type SamplingStrategyOptions,
} from "./sampling-strategy.js";
export { blockify, type Span } from "./span.js";
export type {
  ErrorPart,
  FinishPart,
  LogitsPart,
  ReasoningDeltaPart,
  ResponseMetadataPart,
  StreamPart,
  StreamPartSource,
  TextDeltaPart,
  ToolCallPart,
  UsagePart,
} from "./stream-part.js";
export {
  applicationScope,
  backendScope,
  GenAi,
  GenAiMetric,
  genAiSemconvVersion,
  SpanName,
  Tessera as TesseraAttributes,
} from "./telemetry/index.js";
export type { AssistantToolCall, ChatRole, TemplateRepresentation } from "./template-representation.js";
export { type ToolDefinition, tool, ZodTool } from "./tool.js";
