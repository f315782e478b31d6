import { z } from "zod";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { extractJsonText } from "../requirements/schema-requirement.js";
import { TemplatedComponent } from "./templated-component.js";

/** The envelope the model answers in: an object, because some providers only constrain to objects. */
export function resultEnvelope<Output extends z.ZodType>(output: Output) {
  return z.object({ result: output });
}

/**
 * One call of a generative function (Mellea's `@generative`): the function's name, description and
 * arguments, and the JSON schema of its result, rendered by `GenerativeSlot.njk`. The model answers
 * `{"result": ...}`; parse() validates that against the output schema and returns the result.
 */
export class GenerativeSlot<Output> extends TemplatedComponent<{ result: Output }> {
  readonly functionName: string;
  readonly description: string;
  readonly arguments: Record<string, unknown>;
  readonly inputSchema: z.ZodObject;
  readonly envelope: z.ZodType<{ result: Output }>;
  /** Requirement texts shown with the call (check-only ones are left out by the caller). */
  readonly requirements: readonly string[];

  constructor(
    functionName: string,
    description: string,
    inputSchema: z.ZodObject,
    outputSchema: z.ZodType<Output>,
    args: Record<string, unknown>,
    requirements: readonly string[] = [],
  ) {
    super("GenerativeSlot");
    this.functionName = functionName;
    this.description = description;
    this.inputSchema = inputSchema;
    this.envelope = resultEnvelope(outputSchema) as unknown as z.ZodType<{ result: Output }>;
    this.arguments = args;
    this.requirements = requirements;
  }

  protected templateArgs(): Record<string, unknown> {
    return {
      name: this.functionName,
      description: this.description,
      parameters: Object.keys(this.inputSchema.shape).join(", "),
      inputSchema: schemaText(this.inputSchema),
      arguments: JSON.stringify(this.arguments, null, 2),
      outputSchema: schemaText(this.envelope),
      requirements: this.requirements,
    };
  }

  protected parseOutput(computed: ModelOutputThunk<{ result: Output }>): { result: Output } {
    return this.envelope.parse(JSON.parse(extractJsonText(computed.value ?? "")));
  }
}

function schemaText(schema: z.ZodType): string {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return JSON.stringify(rest);
}
