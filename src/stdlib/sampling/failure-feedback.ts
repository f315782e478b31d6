import type { Validations } from "./sampling-history.js";

/**
 * The failed requirements of one sample as a bullet list, each with its reason when it has one. Check-only
 * requirements and those without a description are left out: they are never shown to the model.
 */
export function describeFailures(validations: Validations): string[] {
  return validations
    .filter(
      ([requirement, result]) => !result.result && requirement.checkOnly !== true && requirement.description,
    )
    .map(([requirement, result]) =>
      result.reason ? `* ${requirement.description} (why: ${result.reason})` : `* ${requirement.description}`,
    );
}
