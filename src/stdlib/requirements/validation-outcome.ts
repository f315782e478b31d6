import { ValidationResult } from "../../core/requirement.js";
import { ValidationFunctionResultError } from "../errors/validation-function-result-error.js";

/** What a validation function may return: a boolean, a `[passed, reason]` pair, or a full ValidationResult. */
export type ValidationOutcome = boolean | readonly [boolean, string] | ValidationResult;

/** Turn a validation function's return value into a ValidationResult; anything else is a typed error. */
export function toValidationResult(
  outcome: unknown,
  requirementDescription: string | null,
  fallbackReason: string | null = null,
): ValidationResult {
  if (outcome instanceof ValidationResult) return outcome;
  if (typeof outcome === "boolean") return new ValidationResult(outcome, { reason: fallbackReason });
  if (
    Array.isArray(outcome) &&
    outcome.length === 2 &&
    typeof outcome[0] === "boolean" &&
    typeof outcome[1] === "string"
  ) {
    return new ValidationResult(outcome[0], { reason: outcome[1] });
  }
  throw new ValidationFunctionResultError(requirementDescription, outcome);
}
