import type { TokenUsage } from "./generation-metadata.js";
import type { LogitsStep } from "./logits-trace.js";
import type { ModelToolCall } from "./model-tool-call.js";

/**
 * One piece of a generation as a backend delivers it: the only language between a backend and everything
 * that reads its output (the thunk, the server, strategies). A backend's own text conventions (tool-call
 * markup, stop sequences, thinking tags) are resolved before a part leaves it, so no reader ever needs to
 * know which backend produced a stream. Named as the Vercel AI SDK names its stream parts.
 */
export type StreamPart =
  | TextDeltaPart
  | ReasoningDeltaPart
  | ToolCallPart
  | LogitsPart
  | ResponseMetadataPart
  | UsagePart
  | FinishPart
  | ErrorPart;

/** Answer text, in order; the thunk's value is the concatenation of every text delta. */
export interface TextDeltaPart {
  readonly type: "text-delta";
  readonly text: string;
}

/** Reasoning ("thinking") text, in order; never part of the answer's value. */
export interface ReasoningDeltaPart {
  readonly type: "reasoning-delta";
  readonly text: string;
}

/** A tool call, complete: its name is an offered tool's and its arguments are parsed. */
export interface ToolCallPart {
  readonly type: "tool-call";
  readonly toolCall: ModelToolCall;
}

/**
 * The distributions of one or more generated tokens, in order, sent no later than the text of the same
 * tokens. `processed` is what the selector sampled from, `raw` the LM head's output; either is absent when
 * it was not asked for. Both lists, when present, hold the same tokens.
 */
export interface LogitsPart {
  readonly type: "logits";
  readonly processed?: readonly LogitsStep[];
  readonly raw?: readonly LogitsStep[];
}

/** What the provider says about its response (a remote backend sends it as the response starts). */
export interface ResponseMetadataPart {
  readonly type: "response-metadata";
  readonly id?: string | null;
  readonly model?: string | null;
}

/** Tokens spent; the last usage part wins. */
export interface UsagePart {
  readonly type: "usage";
  readonly usage: TokenUsage;
}

/**
 * Why the generation ended ("stop", "length", "abort", "error", or a provider's own reason). `choiceReasons`
 * holds every choice's reason when a provider returned several (`reason` is the first choice's). It closes
 * the output: the thunk ignores parts after it, except a failure.
 */
export interface FinishPart {
  readonly type: "finish";
  readonly reason: string;
  readonly choiceReasons?: readonly string[];
}

/** The generation failed: readers see `error`; the text delivered before it stays readable. */
export interface ErrorPart {
  readonly type: "error";
  readonly error: unknown;
}

/**
 * What a backend hands a thunk: called once, with a signal that aborts when the reader cancels (aclose,
 * cancelGeneration, leaving a for-await) or the caller's AbortSignal fires. Stop producing when it aborts.
 */
export type StreamPartSource = (signal: AbortSignal) => AsyncIterable<StreamPart>;
