import { AbstractTool, type JsonTool } from "../core/abstract-tool.js";
import { ClientSideToolError } from "./errors/client-side-tool-error.js";
import type { ToolInput } from "./request-schemas.js";

/**
 * A tool a client declared in its request. The server only describes it to the model and returns the
 * calls; the client runs its tools, so run() here refuses.
 */
export class JsonSchemaTool extends AbstractTool {
  readonly name: string;
  readonly #definition: JsonTool;

  constructor(input: ToolInput) {
    super();
    this.name = input.function.name;
    this.#definition = {
      type: "function",
      function: {
        name: input.function.name,
        description: input.function.description ?? "",
        parameters: input.function.parameters ?? { type: "object", properties: {} },
      },
    };
  }

  asJsonTool(): JsonTool {
    return this.#definition;
  }

  run(): never {
    throw new ClientSideToolError(this.name);
  }
}
