import type { ModelToolCall } from "../../core/model-tool-call.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";
import { Message } from "./message.js";

/** Strings pass as they are; anything else is sent as JSON, which is what models are trained to read. */
export function stringifyToolOutput(output: unknown): string {
  if (typeof output === "string") return output;
  if (output === undefined) return "";
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    // Cyclic or BigInt values: String() at least never throws.
    return String(output);
  }
}

/** The result of running a tool the model called, sent back as a `tool` turn with the call's id. */
export class ToolMessage extends Message {
  /** The tool's name. */
  readonly name: string;
  /** The arguments the tool ran with. */
  readonly arguments: unknown;
  /** The tool's raw return value (before it was stringified into `content`). */
  readonly toolOutput: unknown;
  readonly toolCall: ModelToolCall;

  constructor(
    toolCall: ModelToolCall,
    toolOutput: unknown,
    content: string = stringifyToolOutput(toolOutput),
  ) {
    super("tool", content, { toolCallId: toolCall.toolCallId });
    this.name = toolCall.name;
    this.arguments = toolCall.args;
    this.toolOutput = toolOutput;
    this.toolCall = toolCall;
  }

  override formatForLlm(): TemplateRepresentation {
    const representation = super.formatForLlm();
    return { ...representation, args: { ...representation.args, name: this.name }, toolName: this.name };
  }
}
