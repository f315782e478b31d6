import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { OpenAIIncompleteStreamError } from "./errors/openai-incomplete-stream-error.js";
import { OpenAIMalformedStreamError } from "./errors/openai-malformed-stream-error.js";
import { OpenAIProviderError } from "./errors/openai-provider-error.js";
import { OpenAIResponseTooLargeError } from "./errors/openai-response-too-large-error.js";
import type { HttpExchange } from "./http-exchange.js";
import type { OpenAIChunk } from "./output-assembler.js";

/** What the retry loop needs to know: the text that was read, and whether any output was. */
export interface StreamProgress {
  text: string;
  delivered: boolean;
}

export interface ReadChatStreamOptions<T> {
  thunk: ModelOutputThunk<T>;
  exchange: HttpExchange;
  /** performance.now() at the start of the generation (retries included). */
  startedAt: number;
  progress: StreamProgress;
  /** maxNewTokens: more output chunks than this means the server ignores max_tokens. */
  maxChunks: number | undefined;
}

/** A wire chunk, or the note that the response started (its first event: id and model). */
export type ChatStreamItem = OpenAIChunk | { kind: "started"; id: string | null; model: string | null };

/**
 * The chunks of one streamed response, up to `data: [DONE]`, pulled as the reader asks for them. Throws
 * a typed error on an unparsable event, an error event, too many chunks, or a body that ends without
 * [DONE].
 */
export async function* readChatStream<T>(
  options: ReadChatStreamOptions<T>,
): AsyncGenerator<ChatStreamItem, void, undefined> {
  const { thunk, exchange, startedAt, progress, maxChunks } = options;
  // Chunks without output (the role announcement) wait here, so a retry never leaves a failed attempt's
  // chunks on the thunk.
  const held: OpenAIChunk[] = [];
  let outputChunks = 0;
  let done = false;
  let started = false;
  for await (const event of exchange.events()) {
    if (event.data === "[DONE]") {
      done = true;
      break;
    }
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(event.data) as Record<string, unknown>;
    } catch (error) {
      throw new OpenAIMalformedStreamError("an event", event.data, error);
    }
    if (event.event === "error" || (payload.error !== undefined && payload.error !== null)) {
      throw new OpenAIProviderError(payload.error ?? payload);
    }
    if (!started) {
      started = true;
      yield {
        kind: "started",
        id: typeof payload.id === "string" ? payload.id : null,
        model: typeof payload.model === "string" ? payload.model : null,
      };
    }
    const chunk: OpenAIChunk = { kind: "chunk", chunk: payload };
    const delta = chunkOutput(payload);
    if (!delta.hasOutput) {
      held.push(chunk);
      continue;
    }
    outputChunks += 1;
    // A server that ignores max_tokens is cut off: one chunk carries at least one token.
    if (maxChunks !== undefined && outputChunks > maxChunks) {
      throw new OpenAIResponseTooLargeError(maxChunks, "tokens");
    }
    if (!progress.delivered) {
      progress.delivered = true;
      exchange.firstTokenArrived();
      thunk.generation.timeToFirstTokenMs = performance.now() - startedAt;
    }
    yield* held.splice(0);
    yield chunk;
    progress.text += delta.text;
  }
  if (!done) throw new OpenAIIncompleteStreamError("the body ended");
  await exchange.drainRest(200);
  yield* held.splice(0);
}

/** Whether a chunk carries output (text, reasoning, tool calls), and choice 0's text. */
function chunkOutput(payload: Record<string, unknown>): { hasOutput: boolean; text: string } {
  const choices = Array.isArray(payload.choices)
    ? (payload.choices as Array<{ index?: number; delta?: Record<string, unknown> }>)
    : [];
  let text = "";
  let hasOutput = false;
  for (const choice of choices) {
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string" && delta.content.length > 0) {
      if ((choice.index ?? 0) === 0) text += delta.content;
      hasOutput = true;
    }
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content.length > 0) hasOutput = true;
    if (typeof delta.reasoning === "string" && delta.reasoning.length > 0) hasOutput = true;
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) hasOutput = true;
  }
  return { hasOutput, text };
}
