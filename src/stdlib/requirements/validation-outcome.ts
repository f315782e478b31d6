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
  const verdict = readCheckVerdict(outcome, fallbackReason);
  if (verdict === null) throw new ValidationFunctionResultError(requirementDescription, outcome);
  return new ValidationResult(verdict.passed, { reason: verdict.reason });
}

/**
 * A check's boolean (with `fallbackReason`) or `[passed, reason]` pair as passed and reason; null for any
 * other value, which the caller reports as a ValidationFunctionResultError. Shared by toValidationResult
 * and simpleValidate, so both accept exactly the same shapes.
 */
export function readCheckVerdict(
  outcome: unknown,
  fallbackReason: string | null,
): { passed: boolean; reason: string | null } | null {
  if (typeof outcome === "boolean") return { passed: outcome, reason: fallbackReason };
  if (
    Array.isArray(outcome) &&
    outcome.length === 2 &&
    typeof outcome[0] === "boolean" &&
    typeof outcome[1] === "string"
  ) {
    return { passed: outcome[0], reason: outcome[1] };
  }
  return null;
}
