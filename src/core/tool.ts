import { z } from "zod";
import { AbstractTool, type JsonTool } from "./abstract-tool.js";
import { ToolArgumentsError } from "./errors/tool-arguments-error.js";

export interface ToolDefinition<Schema extends z.ZodObject, Result> {
  name: string;
  description: string;
  /** A zod object schema: it validates arguments and generates the JSON description. */
  parameters: Schema;
  run(args: z.infer<Schema>, signal?: AbortSignal): Result | Promise<Result>;
}

/** A tool defined by a zod schema; built with tool(). */
export class ZodTool<Schema extends z.ZodObject, Result> extends AbstractTool<z.infer<Schema>, Result> {
  readonly name: string;
  readonly description: string;
  readonly parameters: Schema;
  readonly #run: ToolDefinition<Schema, Result>["run"];
  #jsonParameters: Record<string, unknown> | null = null;

  constructor(definition: ToolDefinition<Schema, Result>) {
    super();
    this.name = definition.name;
    this.description = definition.description;
    this.parameters = definition.parameters;
    this.#run = definition.run;
  }

  asJsonTool(): JsonTool {
    // The schema never changes, so its JSON form is computed once.
    if (this.#jsonParameters === null) {
      const { $schema: _dialect, ...parameters } = z.toJSONSchema(this.parameters) as Record<string, unknown>;
      this.#jsonParameters = parameters;
    }
    return {
      type: "function",
      function: { name: this.name, description: this.description, parameters: this.#jsonParameters },
    };
  }

  run(args: z.infer<Schema>, signal?: AbortSignal): Result | Promise<Result> {
    return this.#run(args, signal);
  }

  override validateArguments(args: unknown): z.infer<Schema> {
    const parsed = this.parameters.safeParse(args);
    if (parsed.success) return parsed.data;
    const fields = parsed.error.issues.map((issue) => issue.path.map(String).join("."));
    const problem = parsed.error.issues
      .map(
        (issue) =>
          `${issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)"}: ${issue.message}`,
      )
      .join("; ");
    throw new ToolArgumentsError(this.name, problem, fields, parsed.error);
  }
}

/** Define a tool from a name, a description, a zod parameter schema and a run function. */
export function tool<Schema extends z.ZodObject, Result>(
  definition: ToolDefinition<Schema, Result>,
): ZodTool<Schema, Result> {
  return new ZodTool(definition);
}
