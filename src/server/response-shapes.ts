import { rawLogitsToExtension } from "../backends/openai/raw-logits-extension.js";
import type { LogitsStep, LogitsTrace } from "../core/logits-trace.js";
import type { ModelOutputThunk } from "../core/model-output-thunk.js";
import { buildCompletionUsage } from "../messages/openai/completion-usage.js";
import { buildToolCalls } from "../messages/openai/tool-calls.js";

/** Fields every response object of one request shares. */
export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

/** One entry of OpenAI's chat `logprobs.content`. */
export interface WireLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

function bytesOf(text: string): number[] {
  return [...Buffer.from(text, "utf8")];
}

function stepLogprob(step: LogitsStep): number {
  if (step.logprob !== null) return step.logprob;
  return Number.NEGATIVE_INFINITY;
}

/** Processed-logits steps in the OpenAI `logprobs.content` shape (top `topLogprobs` alternatives each). */
export function logprobsContent(
  trace: LogitsTrace,
  fromStep: number,
  toStep: number,
  topLogprobs: number,
): WireLogprob[] {
  return trace.steps.slice(fromStep, toStep).map((step) => ({
    token: step.text,
    logprob: stepLogprob(step),
    bytes: step.bytes === undefined ? bytesOf(step.text) : Array.from(step.bytes),
    top_logprobs: step.top.slice(0, topLogprobs).map((alternative) => ({
      token: alternative.text,
      logprob: alternative.logprob,
      bytes: bytesOf(alternative.text),
    })),
  }));
}

/**
 * The finish reason to report: "length" whenever the token limit ended the output (as OpenAI does, even
 * when complete tool calls precede the cut: a partial one after them was dropped), else tool_calls when
 * the model called tools, else the backend's.
 */
export function finishReason(thunk: ModelOutputThunk<unknown>): string {
  const reason = thunk.generation.finishReasons?.[0];
  if (reason === "length") return reason;
  if ((thunk.toolCalls?.length ?? 0) > 0) return "tool_calls";
  return reason === undefined || reason === "unknown" ? "stop" : reason;
}

export interface LogprobsRequest {
  /** top_logprobs to return, or null when logprobs were not asked for. */
  topLogprobs: number | null;
  rawLogits: boolean;
}

/** The choice extras: logprobs (when asked) and the raw-logits extension (when asked). */
export function choiceExtras(
  thunk: ModelOutputThunk<unknown>,
  request: LogprobsRequest,
  fromStep = 0,
  toStep = Number.POSITIVE_INFINITY,
): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  const trace = thunk.generation.logits;
  if (request.topLogprobs !== null) {
    extras.logprobs =
      trace === null
        ? null
        : { content: logprobsContent(trace, fromStep, toStep, request.topLogprobs), refusal: null };
  }
  const raw = thunk.generation.rawLogits;
  if (request.rawLogits && raw !== null) {
    const extension = rawLogitsToExtension(raw, fromStep);
    extension.content = extension.content.slice(0, Math.max(0, toStep - fromStep));
    extras.tessera_raw_logits = extension;
  }
  return extras;
}

/** A whole (non-streamed) chat completion. */
export function chatCompletionBody(
  identity: ResponseIdentity,
  thunk: ModelOutputThunk<unknown>,
  request: LogprobsRequest,
  toolsOffered: boolean,
): Record<string, unknown> {
  const toolCalls = buildToolCalls(thunk);
  // Backends deliver answer text only (a backend's tool-call markup ends as tool calls inside it).
  const text = thunk.value ?? "";
  // OpenAI's shape for a turn that only calls tools (or was cut off while calling one): content null.
  const message: Record<string, unknown> = {
    role: "assistant",
    content: text.length === 0 && (toolCalls !== null || toolsOffered) ? null : text,
  };
  if (toolCalls !== null) message.tool_calls = toolCalls;
  if (thunk.thinking !== null) message.reasoning_content = thunk.thinking;
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: finishReason(thunk),
        logprobs: null,
        ...choiceExtras(thunk, request),
      },
    ],
    usage: buildCompletionUsage(thunk),
  };
}

/** A whole (non-streamed) text completion. */
export function textCompletionBody(
  identity: ResponseIdentity,
  thunk: ModelOutputThunk<unknown>,
  prefix: string,
): Record<string, unknown> {
  return {
    id: identity.id,
    object: "text_completion",
    created: identity.created,
    model: identity.model,
    choices: [
      { index: 0, text: prefix + (thunk.value ?? ""), finish_reason: finishReason(thunk), logprobs: null },
    ],
    usage: buildCompletionUsage(thunk),
  };
}
