const marker = Symbol.for("tessera.AbstractTool");

/** A tool description in the OpenAI function-calling format, which every supported backend accepts. */
export interface JsonTool {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  };
}

/**
 * A tool a model can call. `Args` is the (validated) argument object, `Result` what run() returns.
 * Subclasses that know a schema override validateArguments() so ModelToolCall.callFunc() never runs a tool
 * on arguments it did not check.
 */
export abstract class AbstractTool<Args = Record<string, unknown>, Result = unknown> {
  readonly [marker] = true;

  /** Unique name used in JSON descriptions and tool-call dispatch. */
  abstract readonly name: string;

  /** JSON description of the tool for function-calling APIs. */
  abstract asJsonTool(): JsonTool;

  /** Execute the tool on validated arguments. */
  abstract run(args: Args, signal?: AbortSignal): Result | Promise<Result>;

  /** Check raw arguments (as the model sent them) and return them typed; throw ToolArgumentsError otherwise. */
  validateArguments(args: unknown): Args {
    return args as Args;
  }

  static isInstance(value: unknown): value is AbstractTool<unknown, unknown> {
    return typeof value === "object" && value !== null && marker in value;
  }
}
