import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { InvalidOptionError } from "./invalid-option-error.js";

const marker = Symbol.for("tessera.error.IncompatibleOptionsError");

/**
 * Options that are each in range but cannot work together (batchSize below sequences), or that ask for
 * more than llama.cpp or the machine can hold. llama.cpp answers most of these with an assertion that
 * aborts the process, so they are refused before any native call. A subclass of
 * InvalidOptionError, so code that maps option errors (the server's 400) handles it too.
 */
export class IncompatibleOptionsError extends InvalidOptionError {
  readonly [marker] = true;
  readonly problem: string;
  readonly remedy: string;

  constructor(optionName: string, received: unknown, problem: string, remedy: string) {
    super(optionName, "a compatible value", received);
    this.name = "IncompatibleOptionsError";
    this.message = `${problem}; ${remedy}. Nothing was started.`;
    this.problem = problem;
    this.remedy = remedy;
  }

  // Its own marker: the inherited isInstance would say yes to every InvalidOptionError.
  static override isInstance(error: unknown): error is IncompatibleOptionsError {
    return hasErrorMarker(error, marker);
  }
}
