import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import { Instruction, type InstructionOptions } from "../components/instruction.js";
import { type ActOptions, type ActResult, act } from "./act.js";

export type InstructOptions<T = string> = ActOptions<T> &
  Omit<InstructionOptions, "description" | "requirements">;

/**
 * Ask the model to do something: builds an Instruction (requirements shown to the model, unless check-only)
 * and acts on it, validating the same requirements.
 */
export async function instruct<T = string>(
  description: string,
  context: Context,
  backend: Backend,
  options: InstructOptions<T> = {},
): Promise<ActResult<T>> {
  const { iclExamples, groundingContext, userVariables, prefix, images, audio, ...actOptions } = options;
  const instruction = new Instruction({
    description,
    requirements: options.requirements ?? [],
    ...(iclExamples === undefined ? {} : { iclExamples }),
    ...(groundingContext === undefined ? {} : { groundingContext }),
    ...(userVariables === undefined ? {} : { userVariables }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(images === undefined ? {} : { images }),
    ...(audio === undefined ? {} : { audio }),
  });
  // The instruction's own requirement objects, so the strings were reqified (and variables filled) once.
  return act<T>(instruction as never, context, backend, {
    ...actOptions,
    requirements: instruction.requirements,
  });
}
