import type { z } from "zod";
import type { AbstractTool } from "./abstract-tool.js";
import type { CBlock } from "./cblock.js";
import type { Component } from "./component.js";
import type { Context } from "./context.js";
import type { ModelOptions } from "./model-options.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";

/** What a backend can do; callers check before asking. */
export interface BackendCapabilities {
  images: boolean;
  audio: boolean;
  /** Processed (post-sampler) per-token logits. */
  logits: boolean;
  /** Raw LM-head per-token logits. */
  rawLogits: boolean;
  /** Grammar / JSON-schema constrained decoding. */
  grammar: boolean;
  tools: boolean;
  /**
   * The `toolChoice` model option ("required" forces a tool call, "none" forbids one). A surface such as
   * tessera serve forwards an OpenAI `tool_choice` only to a backend that declares it.
   */
  toolChoice: boolean;
  /**
   * The `rawPrompt` model option: the action's text is the whole prompt, with no chat template (what
   * OpenAI's legacy /v1/completions means). tessera serve's /v1/completions sends it to a backend that
   * declares this, so a backend that declares it must accept the option.
   */
  rawPrompt?: boolean;
  /** Sequences decoded together in one batch (1 = no batching). */
  parallelSequences: number;
  /**
   * Every refusal of a request (an option out of range, a prompt that does not fit) rejects the generate
   * call itself, and a thunk it returns is already running. tessera serve then sends a streamed answer's
   * headers as soon as the generation starts, as OpenAI does, so the client has them before the first
   * token instead of parsing them with it. A backend that may still refuse after returning its thunk (a
   * remote one learns of refusals from its server's answer) leaves this unset: its refusals then stay
   * plain HTTP errors, because the headers wait for the first output.
   */
  refusesUpFront?: boolean;
}

export interface GenerateOptions<T = string> {
  /** Constrain the output to this schema (JSON); parsedRepr then holds the parsed value. */
  format?: z.ZodType<T>;
  modelOptions?: ModelOptions;
  /** Tools offered to the model on top of those the context's actions carry. */
  tools?: AbstractTool[];
  /** Aborting cancels the generation (before it starts: nothing costly happens). */
  signal?: AbortSignal;
  /** Free-form labels for logs, traces and metrics. */
  labels?: Record<string, string>;
}

/** An action a backend can generate for: a component, a block, or an earlier output (sent as it was). */
export type GenerateAction<T = string> = Component<T> | CBlock | ModelOutputThunk<unknown>;

export interface GenerateResult<T = string> {
  /** The output; usually still being computed when returned. */
  thunk: ModelOutputThunk<T>;
  /** The context with the action and the thunk appended. */
  context: Context;
}

/** A model behind one interface. Implementations extend BaseBackend. */
export interface Backend {
  /** Identifier of the model, for logs and template selection. */
  readonly modelId: string;
  readonly capabilities: BackendCapabilities;
  /** Generate the answer to `action` in `context`; returns at once with an uncomputed thunk. */
  generateFromContext<T = string>(
    action: GenerateAction<T>,
    context: Context,
    options?: GenerateOptions<T>,
  ): Promise<GenerateResult<T>>;
  /** Generate for each action independently (no chat history), as a batch. */
  generateFromRaw<T = string>(
    actions: ReadonlyArray<GenerateAction<T>>,
    context: Context,
    options?: GenerateOptions<T>,
  ): Promise<Array<ModelOutputThunk<T>>>;
}
