import type { ValidationResult } from "../requirement.js";
import { inApplicationSpan } from "./application-span.js";
import { SpanName, Tessera } from "./gen-ai-conventions.js";

/** Run one batch of requirement checks inside a "validation" span (Mellea's), tagged with the outcome. */
export function inValidationSpan<R>(
  requirementCount: number,
  check: () => Promise<R>,
  resultsOf: (outcome: R) => readonly ValidationResult[],
): Promise<R> {
  return inApplicationSpan(
    SpanName.validation,
    { [Tessera.validationRequirementCount]: requirementCount },
    async (span) => {
      const outcome = await check();
      const results = resultsOf(outcome);
      const passed = results.filter((result) => result.asBool()).length;
      span.setAttributes({
        [Tessera.validationPassed]: passed === results.length,
        [Tessera.validationPassedCount]: passed,
        [Tessera.validationFailedCount]: results.length - passed,
      });
      return outcome;
    },
  );
}
