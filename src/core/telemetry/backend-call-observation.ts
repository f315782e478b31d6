import { type Attributes, diag, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { GenerationMetadata } from "../generation-metadata.js";
import type { ModelOptions } from "../model-options.js";
import type { ModelOutputThunk } from "../model-output-thunk.js";
import { backendScope, GenAi, Tessera } from "./gen-ai-conventions.js";
import { genAiInstruments } from "./gen-ai-instruments.js";

/** "chat" for a generation in a context, "text_completion" for a raw one (Mellea's two backend spans). */
export type GenAiOperation = "chat" | "text_completion";

export interface BackendCallObservationStart {
  operation: GenAiOperation;
  /** The model asked for (the backend's modelId). */
  requestModel: string;
  /** The action's class, for tessera.action_type. */
  actionType: string;
  modelOptions: ModelOptions;
  /** Whether a structured output format was asked for. */
  structured: boolean;
  /** The backend's own attributes (the OpenAI backend adds server.address and server.port). */
  attributes: Attributes;
  /**
   * performance.now() when the call started; default now. A backend observes its call once the generation
   * has started (this bookkeeping then runs while it decodes), and the span still starts with the call.
   */
  startedAt?: number;
}

/**
 * One backend call (one generation of the user's), seen from OpenTelemetry: a client span named after the operation, ended when the thunk
 * settles (so its duration is the caller's, to the last chunk read), and the GenAI client metrics. Both are
 * no-ops until the user registers an SDK.
 */
export class BackendCallObservation {
  readonly #span: Span;
  readonly #start: BackendCallObservationStart;
  readonly #startedAt: number;
  #ended = false;

  constructor(start: BackendCallObservationStart) {
    this.#start = start;
    this.#startedAt = start.startedAt ?? performance.now();
    const options = start.modelOptions;
    // GenAI semconv names a client span "{gen_ai.operation.name} {gen_ai.request.model}" ("chat tiny").
    this.#span = trace.getTracer(backendScope).startSpan(`${start.operation} ${start.requestModel}`, {
      kind: SpanKind.CLIENT,
      // A performance.now() value: the SDK maps it through the same wall-clock offset as the spans it times
      // itself (an epoch value would be taken as is, off by any drift between the two clocks).
      startTime: this.#startedAt,
      attributes: withoutUndefined({
        [GenAi.operationName]: start.operation,
        [GenAi.requestModel]: start.requestModel,
        [GenAi.requestTemperature]: options.temperature,
        [GenAi.requestTopP]: options.topP,
        [GenAi.requestTopK]: options.topK,
        [GenAi.requestMaxTokens]: options.maxNewTokens,
        [GenAi.requestSeed]: options.seed,
        [GenAi.outputType]: start.structured ? "json" : "text",
        [Tessera.actionType]: start.actionType,
        ...start.attributes,
      }),
    });
  }

  /** End the span and record the metrics when `thunk` settles. */
  follow(thunk: ModelOutputThunk<unknown>): void {
    thunk.onSettled(() => this.#finish(thunk, null));
  }

  /** The generation failed before a thunk existed (bad options, a prompt too long, a refused request). */
  fail(error: unknown): void {
    this.#finish(null, error);
  }

  #finish(thunk: ModelOutputThunk<unknown> | null, startError: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    // On the clock the span started on (performance.now(), mapped by the SDK): given a start time, the SDK
    // would time the end and events with Date.now() (whole milliseconds), so a quick call would end at or
    // before its start.
    const endedAt = performance.now();
    const generation = thunk?.generation ?? null;
    const error = startError ?? thunk?.failure ?? null;
    const common = withoutUndefined({
      [GenAi.operationName]: this.#start.operation,
      [GenAi.requestModel]: this.#start.requestModel,
      [GenAi.providerName]: generation?.provider ?? undefined,
      [GenAi.responseModel]: generation?.responseModel ?? undefined,
      [GenAi.serverAddress]: this.#start.attributes[GenAi.serverAddress],
      [GenAi.serverPort]: this.#start.attributes[GenAi.serverPort],
      [GenAi.errorType]: error === null ? undefined : errorType(error),
    });
    // A span processor or metric reader that throws (a user's exporter set-up) must not replace the call's
    // own error, nor break the thunk that settled, nor take the other signal with it: each is reported as
    // OpenTelemetry reports its own failures.
    try {
      this.#endSpan(thunk, error, common, endedAt);
    } catch (failure) {
      diag.error("tessera: ending a backend call's span failed", failure);
    }
    try {
      this.#recordMetrics(generation, common, endedAt);
    } catch (failure) {
      diag.error("tessera: recording a backend call's metrics failed", failure);
    }
  }

  #endSpan(
    thunk: ModelOutputThunk<unknown> | null,
    error: unknown,
    common: Attributes,
    endedAt: number,
  ): void {
    const generation = thunk?.generation ?? null;
    const span = this.#span;
    span.setAttributes(common);
    if (generation !== null) {
      span.setAttributes(
        withoutUndefined({
          [GenAi.requestStream]: generation.streaming,
          [GenAi.responseId]: generation.responseId ?? undefined,
          [GenAi.responseFinishReasons]: generation.finishReasons ?? undefined,
          [GenAi.usageInputTokens]: generation.usage?.promptTokens,
          [GenAi.usageOutputTokens]: generation.usage?.completionTokens,
          [GenAi.responseTimeToFirstChunk]: generation.ttfbMs === null ? undefined : generation.ttfbMs / 1000,
          [Tessera.cancelled]: thunk?.cancelled === true ? true : undefined,
        }),
      );
    }
    if (error !== null) {
      if (error instanceof Error) {
        // The SDK reads the error's name and stack: a getter that throws there must not keep the span open.
        try {
          span.recordException(error, endedAt);
        } catch (failure) {
          diag.error("tessera: recording a backend call's exception on its span failed", failure);
        }
      }
      span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
    }
    span.end(endedAt);
  }

  #recordMetrics(generation: GenerationMetadata | null, common: Attributes, endedAt: number): void {
    const instruments = genAiInstruments();
    instruments.operationDuration.record((endedAt - this.#startedAt) / 1000, common);
    const usage = generation?.usage ?? null;
    if (usage !== null) {
      instruments.tokenUsage.record(usage.promptTokens, { ...common, [GenAi.tokenType]: "input" });
      instruments.tokenUsage.record(usage.completionTokens, { ...common, [GenAi.tokenType]: "output" });
    }
    // The conventions record time to first chunk for streamed calls only.
    if (generation?.streaming === true && generation.ttfbMs !== null) {
      instruments.timeToFirstChunk.record(generation.ttfbMs / 1000, common);
    }
  }
}

/** The error's class name (its `name`), as error.type asks; "_OTHER" when there is none. */
function errorType(error: unknown): string {
  // An error's name is read through whatever getter it has: one that throws must not replace the call's
  // own failure (the attributes are built before the span and metric guards).
  try {
    if (error instanceof Error) return error.name || error.constructor.name || "_OTHER";
  } catch {
    // fall through
  }
  return "_OTHER";
}

/** The status message; an error whose message cannot be read (a throwing getter) still ends its span. */
function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "(the error's message could not be read)";
  }
}

function withoutUndefined(attributes: Record<string, unknown>): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) result[key] = value as Attributes[string];
  }
  return result;
}
