import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { BackendCapabilities, GenerateAction, GenerateResult } from "../core/backend.js";
import { BaseBackend, type BaseBackendOptions, type ResolvedGenerateOptions } from "../core/base-backend.js";
import type { Context } from "../core/context.js";
import { ComponentParseError } from "../core/errors/component-parse-error.js";
import { extendModelOptionsSchema } from "../core/model-options.js";
import type { ModelOutputThunk as ModelOutputThunkType } from "../core/model-output-thunk.js";
import { ModelOutputThunk } from "../core/model-output-thunk.js";
import type { ModelToolCall } from "../core/model-tool-call.js";
import type { Span } from "../core/span.js";
import type { StreamPart } from "../core/stream-part.js";
import { ScriptExhaustedError } from "./errors/script-exhausted-error.js";

/** One scripted answer: plain text, or text with streaming, thinking, tool calls and faults. */
export type ScriptedResponse =
  | string
  | {
      text: string;
      /** Exact chunks to stream (their concatenation should equal `text`); default: split into words. */
      chunks?: string[];
      /** Milliseconds to wait before each chunk (overrides the backend's chunkDelayMs). */
      delayMs?: number;
      thinking?: string;
      toolCalls?: ModelToolCall[];
      /** The finish reason to report (say "length" for output cut by maxNewTokens); default "stop". */
      finishReason?: string;
      /** Fail the generation with this error after streaming the chunks. */
      failWith?: unknown;
      /** Throw this from generateFromContext itself, before any thunk exists. */
      throwOnCall?: unknown;
    };

const schemaWithToolChoice = extendModelOptionsSchema({
  toolChoice: z.enum(["auto", "required", "none"]).optional(),
});

/** Everything a call received, recorded in order. */
export interface ScriptedCall {
  kind: "context" | "raw";
  action: Span;
  context: Context;
  /** context.viewForGeneration() at call time: what a real backend would have sent as history. */
  view: Span[] | null;
  options: ResolvedGenerateOptions<unknown>;
}

export interface ScriptedBackendOptions extends BaseBackendOptions {
  /** Responses in call order, or a function answering each call (numbered from 0). */
  responses: ScriptedResponse[] | ((call: ScriptedCall, callIndex: number) => ScriptedResponse);
  modelId?: string;
  capabilities?: Partial<BackendCapabilities>;
  /** Milliseconds to wait before each streamed chunk (default 0). */
  chunkDelayMs?: number;
  /** Thunk queue capacity, to exercise backpressure (default: the thunk's). */
  queueCapacity?: number;
}

/**
 * A backend that answers from a script and records its calls: for testing contexts, strategies and the
 * functional API without a model. Never a stand-in for the real backends in their own tests.
 */
export class ScriptedBackend extends BaseBackend {
  readonly modelId: string;
  readonly capabilities: BackendCapabilities;
  readonly calls: ScriptedCall[] = [];
  /** Parts actually queued in thunks, text and reasoning (a slow reader keeps this behind the script). */
  pushedChunks = 0;
  readonly #responses: ScriptedBackendOptions["responses"];
  readonly #chunkDelayMs: number;
  readonly #queueCapacity: number | undefined;

  constructor(options: ScriptedBackendOptions) {
    super(options);
    this.modelId = options.modelId ?? "scripted";
    this.capabilities = {
      images: false,
      audio: false,
      logits: false,
      rawLogits: false,
      grammar: false,
      tools: true,
      toolChoice: false,
      parallelSequences: 1,
      ...options.capabilities,
    };
    this.#responses = options.responses;
    this.#chunkDelayMs = options.chunkDelayMs ?? 0;
    this.#queueCapacity = options.queueCapacity;
  }

  // A scripted backend that declares toolChoice takes the option, as a real backend that declares it does.
  protected override get modelOptionsSchema(): z.ZodObject {
    return this.capabilities.toolChoice ? schemaWithToolChoice : super.modelOptionsSchema;
  }

  protected async doGenerateFromContext<T>(
    action: GenerateAction<T>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<GenerateResult<T>> {
    const thunk = this.#answer<T>("context", action, context, options);
    return { thunk, context: context.add(action).add(thunk) };
  }

  protected async doGenerateFromRaw<T>(
    actions: ReadonlyArray<GenerateAction<T>>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<Array<ModelOutputThunkType<T>>> {
    return actions.map((action) => this.#answer<T>("raw", action, context, options));
  }

  #answer<T>(
    kind: ScriptedCall["kind"],
    action: GenerateAction<T>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): ModelOutputThunkType<T> {
    const call: ScriptedCall = {
      kind,
      action,
      context,
      view: context.viewForGeneration(),
      options: options as ResolvedGenerateOptions<unknown>,
    };
    const callIndex = this.calls.length;
    this.calls.push(call);
    const script = this.#responses;
    let response: ScriptedResponse;
    if (typeof script === "function") response = script(call, callIndex);
    else if (callIndex < script.length) response = script[callIndex]!;
    else throw new ScriptExhaustedError(callIndex + 1, script.length);
    const scripted = typeof response === "string" ? { text: response } : response;
    if (scripted.throwOnCall !== undefined) throw scripted.throwOnCall;

    const thunk = new ModelOutputThunk<T>();
    thunk.action = action;
    thunk.context = context;
    thunk.generation.model = this.modelId;
    thunk.generation.provider = "scripted";
    thunk.generation.streaming = options.modelOptions.stream ?? false;
    const parts: StreamPart[] = [];
    if (scripted.thinking !== undefined) parts.push({ type: "reasoning-delta", text: scripted.thinking });
    for (const text of scripted.chunks ?? splitIntoWords(scripted.text))
      parts.push({ type: "text-delta", text });
    const format = options.format;
    const delayMs = scripted.delayMs ?? this.#chunkDelayMs;
    // The thunk listens to the caller's signal and aborts the source's: the script only watches that one.
    const backend = this;
    async function* source(signal: AbortSignal): AsyncGenerator<StreamPart, void, undefined> {
      let produced = "";
      for (const part of parts) {
        if (delayMs > 0) {
          try {
            await sleep(delayMs, undefined, { signal });
          } catch {
            return;
          }
        }
        if (signal.aborted) return;
        yield part;
        backend.pushedChunks += 1;
        if (part.type === "text-delta") produced += part.text;
      }
      if (scripted.failWith !== undefined) {
        yield { type: "error", error: scripted.failWith };
        return;
      }
      const completionTokens = parts.length;
      yield { type: "usage", usage: { promptTokens: 0, completionTokens, totalTokens: completionTokens } };
      for (const toolCall of scripted.toolCalls ?? []) yield { type: "tool-call", toolCall };
      if (format !== undefined) {
        try {
          thunk.parsedRepr = format.parse(JSON.parse(produced));
        } catch (error) {
          thunk.error = new ComponentParseError("format", error);
        }
      }
      yield { type: "finish", reason: scripted.finishReason ?? "stop" };
    }
    thunk.consume(source, {
      ...(this.#queueCapacity === undefined ? {} : { capacity: this.#queueCapacity }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return thunk;
  }
}

function splitIntoWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text.length > 0 ? [text] : []);
}
