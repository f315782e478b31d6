import type { Backend } from "./backend.js";
import type { ChunkingStrategy } from "./chunking-strategy.js";
import type { Context } from "./context.js";
import type { ModelOptions } from "./model-options.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";

export interface ValidationResultOptions {
  /** Why the requirement passed or failed, in words. */
  reason?: string | null;
  /** A score, when the validator produces one. */
  score?: number | null;
  /** The thunk of an LLM-as-judge validation, if one ran. */
  thunk?: ModelOutputThunk<unknown> | null;
  /** The context the validation ran in. */
  context?: Context | null;
}

/** The outcome of validating one requirement. */
export class ValidationResult {
  readonly result: boolean;
  readonly reason: string | null;
  readonly score: number | null;
  readonly thunk: ModelOutputThunk<unknown> | null;
  readonly context: Context | null;

  constructor(result: boolean, options: ValidationResultOptions = {}) {
    this.result = result;
    this.reason = options.reason ?? null;
    this.score = options.score ?? null;
    this.thunk = options.thunk ?? null;
    this.context = options.context ?? null;
  }

  asBool(): boolean {
    return this.result;
  }
}

export interface ValidateOptions {
  modelOptions?: ModelOptions;
  signal?: AbortSignal;
}

/** The verdict of a streaming check: satisfied so far, violated for good, or not decidable yet. */
export type PartialValidationState = "pass" | "fail" | "unknown";

/**
 * The outcome of checking a requirement on a sample that is still streaming (Mellea's
 * PartialValidationResult). "fail" means no continuation can pass: the sample is cancelled. "pass" does not
 * replace the final validate(); it only says nothing is wrong so far.
 */
export class PartialValidationResult {
  readonly success: PartialValidationState;
  readonly reason: string | null;
  readonly score: number | null;

  constructor(
    success: PartialValidationState,
    options: { reason?: string | null; score?: number | null } = {},
  ) {
    if (success !== "pass" && success !== "fail" && success !== "unknown") {
      throw new TypeError(
        `Expected "pass", "fail" or "unknown" for a partial validation result but received ${String(success)}.`,
      );
    }
    this.success = success;
    this.reason = options.reason ?? null;
    this.score = options.score ?? null;
  }

  /** True for "pass" only: "unknown" is not a failure, check `success` before treating false as one. */
  asBool(): boolean {
    return this.success === "pass";
  }
}

/** What streamValidate() sees each time a chunk of the sample completes. */
export interface StreamPartial {
  /** The newly completed chunk (per the requirement's streamChunking); the raw delta when it has none. */
  readonly chunk: string;
  /** Position of this chunk in the sample's stream, from 0. */
  readonly chunkIndex: number;
  /** Everything the sample has produced so far, including this chunk and any fragment after it. */
  readonly text: string;
  /** True for chunks released once the stream has ended (the trailing fragment). */
  readonly final: boolean;
  /**
   * The sample itself, for its metadata (generation.logits / rawLogits grow as it streams). Never read its
   * stream: the validator is its single consumer.
   */
  readonly thunk: ModelOutputThunk<unknown>;
}

/** A property the output should have, checked against a context whose last output is the candidate. */
export interface Requirement {
  /** What the requirement asks for, in words (shown to the model by LLM-as-judge and repair strategies). */
  readonly description: string | null;
  /** When true the requirement is checked but never shown to the model. */
  readonly checkOnly?: boolean;
  validate(backend: Backend, context: Context, options?: ValidateOptions): Promise<ValidationResult>;
  /**
   * Optional check while the sample streams. Return "fail" only when no continuation of the text can pass
   * validate(): a streaming fail cancels the sample. Requirements without it are checked on the final
   * text only. `context` is the one the sample is generated in (it does not hold the sample yet).
   */
  streamValidate?(
    partial: StreamPartial,
    context: Context,
  ): PartialValidationResult | Promise<PartialValidationResult>;
  /** How the stream is cut before streamValidate() sees it; null or missing: every delta as it arrives. */
  readonly streamChunking?: ChunkingStrategy | null;
  /** Model options the streaming check needs (token-signal requirements ask for logits). */
  readonly streamModelOptions?: ModelOptions | undefined;
}
