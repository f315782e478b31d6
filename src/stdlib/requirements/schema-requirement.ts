import type { z } from "zod";
import type { Context } from "../../core/context.js";
import { ValidationResult } from "../../core/requirement.js";
import { StandardRequirement } from "./standard-requirement.js";

/** The JSON inside a reply: a fenced ```json block when there is one, else the whole text. */
export function extractJsonText(text: string): string {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
  return (fenced?.[1] ?? text).trim();
}

/**
 * A requirement that the output is JSON matching `schema`. The reason names each failing field with zod's
 * message, so repair strategies can tell the model exactly what to fix.
 */
export function schemaRequirement(
  schema: z.ZodType,
  description = "The output is JSON that matches the requested schema.",
): StandardRequirement {
  return new StandardRequirement(description, {
    validate: (context: Context) => {
      const output = context.lastOutput();
      if (output === null || output.value === null) {
        return new ValidationResult(false, { reason: "The context has no output to validate.", context });
      }
      let value: unknown;
      try {
        value = JSON.parse(extractJsonText(output.value));
      } catch (error) {
        return new ValidationResult(false, {
          reason: `The output is not valid JSON: ${(error as Error).message}`,
          context,
        });
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) return new ValidationResult(true, { context });
      const problems = parsed.error.issues.map(
        (issue) =>
          `${issue.path.length > 0 ? issue.path.map(String).join(".") : "(value)"}: ${issue.message}`,
      );
      return new ValidationResult(false, {
        reason: `The JSON does not match: ${problems.join("; ")}`,
        context,
      });
    },
  });
}
