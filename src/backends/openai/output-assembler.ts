import type { z } from "zod";
import { ComponentParseError } from "../../core/errors/component-parse-error.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { StreamPart } from "../../core/stream-part.js";
import {
  type ChunkChoice,
  chatCompletionDeltaMerge,
} from "../../messages/openai/chat-completion-delta-merge.js";
import { extractModelToolRequests } from "../../messages/openai/extract-model-tool-requests.js";
import type { ChatRequest } from "./build-chat-request.js";
import { logprobsToTrace } from "./logprobs-trace.js";
import { rawLogitsFromExtension } from "./raw-logits-extension.js";

/** What the wire delivers: one streamed chunk, or the whole non-streamed completion. */
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
 * Turns wire chunks into stream parts and, at the end, into the closing parts: response id and model,
 * usage, logprobs, tool calls, finish reasons. It also keeps the raw response on the thunk and parses a
 * structured-output format. Only choice 0 feeds the text; every choice's finish reason is kept.
 */
export class OpenAIOutputAssembler<T> {
  readonly #request: ChatRequest;
  readonly #format: z.ZodType<T> | null;
  readonly #chunks: Array<Record<string, unknown>> = [];
  #contentChunks = 0;
  readonly #choiceDeltas = new Map<number, ChunkChoice[]>();
  #completion: Record<string, unknown> | null = null;
  // Choice 0's text, for the structured-output parse.
  #text = "";

  constructor(request: ChatRequest, format: z.ZodType<T> | null) {
    this.#request = request;
    this.#format = format;
  }

  /** The text and reasoning parts of one wire item. */
  parts(item: OpenAIChunk): StreamPart[] {
    if (item.kind === "completion") {
      this.#completion = (item.completion ?? {}) as Record<string, unknown>;
      const message = firstChoice(this.#completion)?.message ?? {};
      return this.#textParts(message.content, message.reasoning_content ?? message.reasoning);
    }
    this.#chunks.push(item.chunk);
    const parts: StreamPart[] = [];
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
      parts.push(...this.#textParts(delta.content, delta.reasoning_content ?? delta.reasoning));
      this.#contentChunks += 1;
    }
    return parts;
  }

  #textParts(text: unknown, reasoning: unknown): StreamPart[] {
    const parts: StreamPart[] = [];
    if (typeof reasoning === "string" && reasoning.length > 0) {
      parts.push({ type: "reasoning-delta", text: reasoning });
    }
    if (typeof text === "string" && text.length > 0) {
      this.#text += text;
      parts.push({ type: "text-delta", text });
    }
    return parts;
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

  /**
   * The closing parts, once the response is complete. Writes what no part carries on the thunk: the raw
   * response, and parsedRepr (or the soft parse error) for a structured-output format.
   */
  finish(thunk: ModelOutputThunk<T>): StreamPart[] {
    const parts: StreamPart[] = [];
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
    parts.push({
      type: "response-metadata",
      id: typeof source.id === "string" ? source.id : null,
      model: typeof source.model === "string" ? source.model : null,
    });
    const usage = source.usage as WireUsage | null | undefined;
    if (usage != null) {
      const promptTokens = usage.prompt_tokens ?? 0;
      const completionTokens = usage.completion_tokens ?? 0;
      parts.push({
        type: "usage",
        usage: {
          promptTokens,
          completionTokens,
          totalTokens: usage.total_tokens ?? promptTokens + completionTokens,
        },
      });
    }
    const logprobContent = choice.logprobs?.content;
    if (this.#request.topLogprobs !== null && Array.isArray(logprobContent)) {
      const trace = logprobsToTrace(logprobContent, this.#request.topLogprobs);
      // The header here, the steps through the part: the thunk appends what logits parts carry.
      thunk.generation.logits = { ...trace, steps: [] };
      parts.push({ type: "logits", processed: trace.steps });
    }
    const raw = rawLogitsFromExtension(choice.tessera_raw_logits);
    if (raw !== null) {
      thunk.generation.rawLogits = { ...raw, steps: [] };
      parts.push({ type: "logits", raw: raw.steps });
    }

    // Calls to tools that were never offered, or with broken JSON, are dropped (with a warning): never run.
    const toolCalls = extractModelToolRequests(this.#request.tools, {
      message: { tool_calls: choice.message?.tool_calls ?? null },
    });
    for (const toolCall of toolCalls ?? []) parts.push({ type: "tool-call", toolCall });

    if (this.#format !== null) {
      try {
        thunk.parsedRepr = this.#format.parse(JSON.parse(this.#text));
      } catch (error) {
        thunk.error = new ComponentParseError("response_format", error);
      }
    }
    if (finishReasons.length > 0) {
      parts.push({ type: "finish", reason: finishReasons[0]!, choiceReasons: finishReasons });
    }
    return parts;
  }
}

function firstChoice(completion: Record<string, unknown>): WireChoice | undefined {
  const choices = completion.choices;
  return Array.isArray(choices)
    ? ((choices as WireChoice[]).find((choice) => (choice.index ?? 0) === 0) ?? choices[0])
    : undefined;
}
