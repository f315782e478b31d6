import type { z } from "zod";
import { ComponentParseError } from "../../core/errors/component-parse-error.js";
import type { ModelOutputThunk, ThunkDelta } from "../../core/model-output-thunk.js";
import {
  type ChunkChoice,
  chatCompletionDeltaMerge,
} from "../../messages/openai/chat-completion-delta-merge.js";
import { extractModelToolRequests } from "../../messages/openai/extract-model-tool-requests.js";
import type { ChatRequest } from "./build-chat-request.js";
import { logprobsToTrace } from "./logprobs-trace.js";
import { rawLogitsFromExtension } from "./raw-logits-extension.js";

/** What the producer hands the thunk: one streamed chunk, or the whole non-streamed completion. */
export type OpenAIChunk =
  | { kind: "chunk"; chunk: Record<string, unknown> }
  | { kind: "completion"; completion: unknown };

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

interface WireChoice {
  index?: number;
  finish_reason?: string | null;
  message?: {
    content?: string | null;
    reasoning_content?: string | null;
    reasoning?: string | null;
    tool_calls?: unknown[] | null;
  };
  logprobs?: { content?: unknown[] | null } | null;
  tessera_raw_logits?: unknown;
}

/**
 * Turns wire chunks into thunk deltas (consumer side) and, at the end, fills the metadata: usage, id,
 * response model, finish reasons, logprobs, tool calls, the raw response and parsedRepr for formats.
 * Only choice 0 feeds the text; every choice's finish reason is kept.
 */
export class OpenAIOutputAssembler<T> {
  readonly #request: ChatRequest;
  readonly #format: z.ZodType<T> | null;
  readonly #chunks: Array<Record<string, unknown>> = [];
  #contentChunks = 0;
  readonly #choiceDeltas = new Map<number, ChunkChoice[]>();
  #completion: Record<string, unknown> | null = null;

  constructor(request: ChatRequest, format: z.ZodType<T> | null) {
    this.#request = request;
    this.#format = format;
  }

  process(item: OpenAIChunk, _thunk: ModelOutputThunk<T>): ThunkDelta | undefined {
    if (item.kind === "completion") {
      this.#completion = (item.completion ?? {}) as Record<string, unknown>;
      const message = firstChoice(this.#completion)?.message ?? {};
      return textDelta(message.content, message.reasoning_content ?? message.reasoning);
    }
    this.#chunks.push(item.chunk);
    let result: ThunkDelta | undefined;
    for (const choice of (item.chunk.choices ?? []) as ChunkChoice[]) {
      const index = choice.index ?? 0;
      const list = this.#choiceDeltas.get(index) ?? [];
      this.#choiceDeltas.set(index, list);
      list.push(choice);
      if (index !== 0) continue;
      const delta = choice.delta as {
        content?: string | null;
        reasoning_content?: string | null;
        reasoning?: string | null;
      };
      result = textDelta(delta.content, delta.reasoning_content ?? delta.reasoning);
      if (result !== undefined) this.#contentChunks += 1;
    }
    return result;
  }

  /**
   * The request was cancelled (a `break` out of the for-await, aclose, cancelGeneration): set the finish
   * reason and usage now, as the local backend does, since no full response will ever set them. Usage is
   * the last the server reported, else the chunks of text received so far (an OpenAI-compatible server
   * streams one token a chunk) over a prompt count the server never sent (0).
   */
  cancelled(thunk: ModelOutputThunk<T>): void {
    const generation = thunk.generation;
    generation.finishReasons ??= ["abort"];
    if (generation.usage !== null) return;
    const reported = this.#chunks.findLast((chunk) => chunk.usage != null)?.usage as WireUsage | undefined;
    const promptTokens = reported?.prompt_tokens ?? 0;
    const completionTokens = Math.max(reported?.completion_tokens ?? 0, this.#contentChunks);
    generation.usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  }

  finish(thunk: ModelOutputThunk<T>): void {
    const generation = thunk.generation;
    let choice: WireChoice;
    let source: Record<string, unknown>;
    let finishReasons: string[];
    if (this.#completion !== null) {
      source = this.#completion;
      choice = firstChoice(source) ?? {};
      const choices = (source.choices ?? []) as WireChoice[];
      finishReasons = choices.map((entry) => entry.finish_reason ?? "unknown");
      thunk.raw = { provider: "openai", response: source, streamedChunks: null };
    } else {
      source = this.#chunks[0] ?? {};
      const merged = [...this.#choiceDeltas.entries()]
        .sort(([left], [right]) => left - right)
        .map(([, deltas]) => chatCompletionDeltaMerge(deltas));
      finishReasons = merged.map((entry) => entry.finish_reason ?? "unknown");
      // A copy: the raw-logits field set below must not land in thunk.raw's merged choices.
      choice = { ...merged[0] };
      const rawExtension = this.#chunks.flatMap((chunk) =>
        ((chunk.choices ?? []) as WireChoice[])
          .filter((entry) => (entry.index ?? 0) === 0)
          .map((entry) => entry.tessera_raw_logits),
      );
      choice.tessera_raw_logits = rawExtension.filter((entry) => entry !== undefined);
      const usageChunk = this.#chunks.findLast((chunk) => chunk.usage != null);
      if (usageChunk !== undefined) source = { ...source, usage: usageChunk.usage };
      thunk.raw = {
        provider: "openai",
        response: { ...source, choices: merged },
        streamedChunks: this.#chunks,
      };
    }
    generation.responseId = typeof source.id === "string" ? source.id : null;
    generation.responseModel = typeof source.model === "string" ? source.model : null;
    generation.finishReasons = finishReasons.length > 0 ? finishReasons : null;
    const usage = source.usage as WireUsage | null | undefined;
    if (usage != null) {
      const promptTokens = usage.prompt_tokens ?? 0;
      const completionTokens = usage.completion_tokens ?? 0;
      generation.usage = {
        promptTokens,
        completionTokens,
        totalTokens: usage.total_tokens ?? promptTokens + completionTokens,
      };
    }
    const logprobContent = choice.logprobs?.content;
    if (this.#request.topLogprobs !== null && Array.isArray(logprobContent)) {
      generation.logits = logprobsToTrace(logprobContent, this.#request.topLogprobs);
    }
    generation.rawLogits = rawLogitsFromExtension(choice.tessera_raw_logits);

    // Calls to tools that were never offered, or with broken JSON, are dropped (with a warning): never run.
    thunk.toolCalls = extractModelToolRequests(this.#request.tools, {
      message: { tool_calls: choice.message?.tool_calls ?? null },
    });

    if (this.#format !== null) {
      try {
        thunk.parsedRepr = this.#format.parse(JSON.parse(thunk.value ?? ""));
      } catch (error) {
        thunk.error = new ComponentParseError("response_format", error);
      }
    }
  }
}

function firstChoice(completion: Record<string, unknown>): WireChoice | undefined {
  const choices = completion.choices;
  return Array.isArray(choices)
    ? ((choices as WireChoice[]).find((choice) => (choice.index ?? 0) === 0) ?? choices[0])
    : undefined;
}

function textDelta(text: unknown, thinking: unknown): ThunkDelta {
  const delta: ThunkDelta = {};
  if (typeof text === "string") delta.text = text;
  if (typeof thinking === "string") delta.thinking = thinking;
  return delta;
}
