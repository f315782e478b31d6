import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Requirement, ValidationResult } from "../../core/requirement.js";
import { inValidationSpan } from "../../core/telemetry/validation-span.js";
import { reqify } from "../requirements/requirement-helpers.js";

export interface ValidateCallOptions {
  /** Validate this output instead of the context's last one (it is appended to the context first). */
  output?: ModelOutputThunk<unknown> | null;
  modelOptions?: ModelOptions;
  signal?: AbortSignal;
}

/** Check requirements against the context's last output (or `output`); one result per requirement, in order. */
export async function validate(
  requirements: ReadonlyArray<string | Requirement>,
  context: Context,
  backend: Backend,
  options: ValidateCallOptions = {},
): Promise<ValidationResult[]> {
  const target = options.output ? context.add(options.output) : context;
  return inValidationSpan(
    requirements.length,
    async () => {
      const results: ValidationResult[] = [];
      // One at a time: judge calls share the backend, and order keeps results reproducible.
      for (const requirement of requirements.map(reqify)) {
        options.signal?.throwIfAborted();
        results.push(
          await requirement.validate(backend, target, {
            ...(options.modelOptions === undefined ? {} : { modelOptions: options.modelOptions }),
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          }),
        );
      }
      return results;
    },
    (results) => results,
  );
}
