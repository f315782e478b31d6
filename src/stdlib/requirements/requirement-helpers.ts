import type { Requirement } from "../../core/requirement.js";
import { StandardRequirement, type ValidationFunction } from "./standard-requirement.js";

/** A requirement shown to the model; validated by `validate` when given, else by the model as judge. */
export function req(description: string, validate: ValidationFunction | null = null): StandardRequirement {
  return new StandardRequirement(description, { validate });
}

/** A check-only requirement: validated like req(), but never shown to the model. */
export function check(description: string, validate: ValidationFunction | null = null): StandardRequirement {
  return new StandardRequirement(description, { validate, checkOnly: true });
}

/** Strings become judged requirements; requirements pass through. */
export function reqify(requirement: string | Requirement): Requirement {
  if (typeof requirement === "string") return new StandardRequirement(requirement);
  if (isRequirement(requirement)) return requirement;
  throw new TypeError(
    `Expected a string or a requirement (an object with validate()) but received ${describeValue(requirement)}.`,
  );
}

/** Any object with a validate() method and a description counts as a requirement. */
export function isRequirement(value: unknown): value is Requirement {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { validate?: unknown }).validate === "function" &&
    "description" in value
  );
}

/** The same requirements in the same order, each once (first occurrence wins). */
export function uniqueRequirements(requirements: Iterable<Requirement>): Requirement[] {
  return [...new Set(requirements)];
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "object" ? (value.constructor?.name ?? "an object") : typeof value;
}
