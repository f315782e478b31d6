import type { Backend } from "../../core/backend.js";
import type { ChunkingStrategy } from "../../core/chunking-strategy.js";
import type { Context } from "../../core/context.js";
import { type ModelOptions, mergeModelOptions } from "../../core/model-options.js";
import {
  type PartialValidationResult,
  type Requirement,
  type StreamPartial,
  type ValidateOptions,
  ValidationResult,
} from "../../core/requirement.js";
import { readJudgeAnswer } from "./judge-verdict.js";
import { RequirementJudge } from "./requirement-judge.js";
import { toValidationResult, type ValidationOutcome } from "./validation-outcome.js";

/** A validation function: looks at the context (its last output is the candidate) and decides. */
export type ValidationFunction = (
  context: Context,
  backend: Backend,
  options: ValidateOptions,
) => ValidationOutcome | Promise<ValidationOutcome>;

export interface StandardRequirementOptions {
  /** Decide in code instead of asking the model; see simpleValidate() for functions of the output text. */
  validate?: ValidationFunction | null;
  /** Checked but never shown to the model (in the instruction or in repair text). */
  checkOnly?: boolean;
  /** Check the sample while it streams too; a "fail" cancels it (see Requirement.streamValidate). */
  streamValidate?: StreamValidationFunction | null;
  /** How the stream is cut for streamValidate (wordChunking, sentenceChunking, ...); default every delta. */
  streamChunking?: ChunkingStrategy | null;
  /** Model options the streaming check needs, merged under the caller's by streaming strategies. */
  streamModelOptions?: ModelOptions;
}

/** A check while the sample streams: "fail" only when no continuation can pass the final validation. */
export type StreamValidationFunction = (
  partial: StreamPartial,
  context: Context,
) => PartialValidationResult | Promise<PartialValidationResult>;

/** Judges never need long answers; the caller's options still win. */
const judgeDefaultOptions = { maxNewTokens: 64 };

/**
 * A requirement in words, optionally with a validation function. Without one, validation asks the model as a
 * judge (template `RequirementJudge.njk`) and reads its answer with readJudgeAnswer(): yes passes, no fails,
 * the answer's words become the reason. Named "standard" because `Requirement` is the core interface every
 * requirement implements.
 */
export class StandardRequirement implements Requirement {
  readonly description: string | null;
  readonly checkOnly: boolean;
  readonly validationFunction: ValidationFunction | null;
  readonly streamChunking: ChunkingStrategy | null;
  readonly streamModelOptions: ModelOptions | undefined;
  readonly streamValidate?: StreamValidationFunction;

  constructor(description: string | null, options: StandardRequirementOptions = {}) {
    if (description !== null && typeof description !== "string") {
      throw new TypeError(
        `Expected a string or null for the requirement description but received ${typeof description}.`,
      );
    }
    this.description = description;
    this.checkOnly = options.checkOnly ?? false;
    this.validationFunction = options.validate ?? null;
    this.streamChunking = options.streamChunking ?? null;
    this.streamModelOptions = options.streamModelOptions;
    // Only present when given: a requirement without it is checked on the final text alone.
    if (options.streamValidate) this.streamValidate = options.streamValidate;
  }

  async validate(
    backend: Backend,
    context: Context,
    options: ValidateOptions = {},
  ): Promise<ValidationResult> {
    options.signal?.throwIfAborted();
    if (this.validationFunction !== null) {
      const outcome = await this.validationFunction(context, backend, options);
      return toValidationResult(outcome, this.description);
    }
    return this.#judge(backend, context, options);
  }

  toString(): string {
    return this.description ?? "(requirement without description)";
  }

  async #judge(backend: Backend, context: Context, options: ValidateOptions): Promise<ValidationResult> {
    const output = context.lastOutput();
    if (output === null || output.value === null) {
      return new ValidationResult(false, { reason: "There is no output in the context to judge.", context });
    }
    if (this.description === null) {
      return new ValidationResult(false, {
        reason: "A requirement without description or validation function cannot be judged.",
        context,
      });
    }
    const judge = new RequirementJudge(this.description, output.value);
    const { thunk, context: judgeContext } = await backend.generateFromContext(judge, context, {
      modelOptions: mergeModelOptions(judgeDefaultOptions, options.modelOptions),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const verdict = readJudgeAnswer(await thunk.avalue());
    return new ValidationResult(verdict.passed, { reason: verdict.reason, thunk, context: judgeContext });
  }
}
