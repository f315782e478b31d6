import type { Backend } from "./backend.js";
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

/** A property the output should have, checked against a context whose last output is the candidate. */
export interface Requirement {
  /** What the requirement asks for, in words (shown to the model by LLM-as-judge and repair strategies). */
  readonly description: string | null;
  /** When true the requirement is checked but never shown to the model. */
  readonly checkOnly?: boolean;
  validate(backend: Backend, context: Context, options?: ValidateOptions): Promise<ValidationResult>;
}
