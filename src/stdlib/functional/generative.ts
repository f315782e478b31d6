import type { z } from "zod";
import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { Requirement } from "../../core/requirement.js";
import type { SamplingStrategy } from "../../core/sampling-strategy.js";
import { GenerativeSlot } from "../components/generative-slot.js";
import { SimpleContext } from "../contexts/simple-context.js";
import { GenerativeInputError } from "../errors/generative-input-error.js";
import { GenerativeOutputError } from "../errors/generative-output-error.js";
import { reqify } from "../requirements/requirement-helpers.js";
import { Session } from "../session/session.js";
import { type ActOptions, type ActResult, act } from "./act.js";

export interface GenerativeSpec<Input extends z.ZodObject, Output extends z.ZodType> {
  /** The function's name, shown to the model. */
  name: string;
  /** What the function computes, shown to the model (the docstring of Mellea's `@generative`). */
  description: string;
  input: Input;
  output: Output;
  requirements?: ReadonlyArray<string | Requirement>;
  strategy?: SamplingStrategy | null;
  modelOptions?: ModelOptions;
}

/** Where a generative function runs: a session (whose context it extends), or a backend and a context. */
export type GenerativeTarget = Session | { backend: Backend; context?: Context; signal?: AbortSignal };

export interface GenerativeFunction<Input extends z.ZodObject, Output extends z.ZodType> {
  (args: z.input<Input>, target: GenerativeTarget): Promise<z.output<Output>>;
  readonly spec: GenerativeSpec<Input, Output>;
}

/**
 * A typed async function computed by the model: arguments are checked against `input` before any call, the
 * model answers `{"result": ...}` constrained to `output` (grammar where the backend has one), and the result
 * is validated again. Bad arguments throw GenerativeInputError; an answer that does not fit throws
 * GenerativeOutputError with the text. Without a session the call runs in a fresh SimpleContext.
 */
export function generative<Input extends z.ZodObject, Output extends z.ZodType>(
  spec: GenerativeSpec<Input, Output>,
): GenerativeFunction<Input, Output> {
  const requirements = spec.requirements?.map(reqify);
  const shownRequirements = (requirements ?? [])
    .filter((requirement) => requirement.checkOnly !== true && requirement.description !== null)
    .map((requirement) => requirement.description as string);
  const run = async (args: z.input<Input>, target: GenerativeTarget): Promise<z.output<Output>> => {
    const parsedArgs = spec.input.safeParse(args);
    if (!parsedArgs.success) {
      const issues = parsedArgs.error.issues;
      throw new GenerativeInputError(
        spec.name,
        issues
          .map((issue) => `${issue.path.map(String).join(".") || "(arguments)"}: ${issue.message}`)
          .join("; "),
        issues.map((issue) => issue.path.map(String).join(".")),
        parsedArgs.error,
      );
    }
    const slot = new GenerativeSlot<z.output<Output>>(
      spec.name,
      spec.description,
      spec.input,
      spec.output as z.ZodType<z.output<Output>>,
      parsedArgs.data as Record<string, unknown>,
      shownRequirements,
    );
    type Envelope = { result: z.output<Output> };
    const options: ActOptions<Envelope> = {
      format: slot.envelope,
      ...(requirements === undefined ? {} : { requirements }),
      ...(spec.strategy === undefined ? {} : { strategy: spec.strategy }),
      ...(spec.modelOptions === undefined ? {} : { modelOptions: spec.modelOptions }),
    };
    let result: ActResult<Envelope>;
    if (target instanceof Session) {
      result = await target.act<Envelope>(slot, options);
    } else {
      if (target.signal !== undefined) options.signal = target.signal;
      result = await act<Envelope>(slot, target.context ?? new SimpleContext(), target.backend, options);
    }
    return unwrap(spec.name, result, slot);
  };
  return Object.assign(run, { spec });
}

function unwrap<Output>(
  functionName: string,
  result: ActResult<{ result: Output }>,
  slot: GenerativeSlot<Output>,
): Output {
  const output = result.output;
  const parsed = output.parsedRepr;
  if (parsed !== null && typeof parsed === "object" && "result" in parsed) return parsed.result;
  // The backend's own format check failed (soft, on output.error): parse once more for a precise message.
  try {
    return slot.parse(output).result;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    throw new GenerativeOutputError(
      functionName,
      output.value,
      (cause as Error).message ?? String(cause),
      error,
    );
  }
}
