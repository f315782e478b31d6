import type { Context } from "../../core/context.js";
import { ValidationResult } from "../../core/requirement.js";
import { ValidationFunctionResultError } from "../errors/validation-function-result-error.js";
import { readCheckVerdict } from "./validation-outcome.js";

/** A check on the candidate's text: true/false, or `[passed, reason]`. */
export type TextCheck = (
  text: string,
) => boolean | readonly [boolean, string] | Promise<boolean | readonly [boolean, string]>;

/**
 * A validation function from a check on the last output's text (the seed's `simple_validate`). A context
 * without an output fails without calling `check`. A boolean result gets `reason` (when given); any return
 * value other than a boolean or a `[boolean, string]` pair is a ValidationFunctionResultError.
 */
export function simpleValidate(
  check: TextCheck,
  reason: string | null = null,
): (context: Context) => Promise<ValidationResult> {
  return async (context: Context) => {
    const output = context.lastOutput();
    if (output === null || output.value === null) {
      return new ValidationResult(false, { reason: "The context has no output to validate.", context });
    }
    const outcome: unknown = await check(output.value);
    const verdict = readCheckVerdict(outcome, reason);
    if (verdict === null) throw new ValidationFunctionResultError(null, outcome);
    return new ValidationResult(verdict.passed, { reason: verdict.reason, context });
  };
}
