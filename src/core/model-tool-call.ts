import type { AbstractTool } from "./abstract-tool.js";
import { ToolArgumentsError } from "./errors/tool-arguments-error.js";

/** A tool call the model asked for, bound to the tool that will run it. */
export class ModelToolCall<Result = unknown> {
  readonly name: string;
  readonly func: AbstractTool<Record<string, unknown>, Result>;
  /** Arguments as the model sent them (a parsed object, or a JSON string when the provider gives text). */
  readonly args: unknown;
  /** Provider-supplied call id; null when the backend exposes none (for example raw-string parsing). */
  readonly toolCallId: string | null;

  constructor(
    name: string,
    func: AbstractTool<Record<string, unknown>, Result>,
    args: unknown,
    toolCallId: string | null = null,
  ) {
    this.name = name;
    this.func = func;
    this.args = args;
    this.toolCallId = toolCallId;
  }

  /** Validate the arguments against the tool's schema, then run it. Invalid arguments never reach the tool. */
  async callFunc(signal?: AbortSignal): Promise<Result> {
    const tool = this.func as unknown as AbstractTool<unknown, Result>;
    return tool.run(tool.validateArguments(this.#decodedArgs()), signal);
  }

  #decodedArgs(): unknown {
    if (typeof this.args !== "string") return this.args;
    try {
      return JSON.parse(this.args);
    } catch (error) {
      // Arguments cut off by the token limit end up here as truncated JSON.
      throw new ToolArgumentsError(
        this.name,
        `arguments are not valid JSON (${(error as Error).message})`,
        [],
        error,
      );
    }
  }
}
