import { randomBytes } from "node:crypto";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { AssistantToolCall } from "../../core/template-representation.js";

/** An OpenAI-compatible tool call: the seed's `ToolCallDict`. */
export type ToolCallDict = AssistantToolCall;

/** True when the output carries at least one tool call. */
export function hasToolCalls(output: ModelOutputThunk<unknown>): boolean {
  return Array.isArray(output.toolCalls) && output.toolCalls.length > 0;
}

function serialiseArguments(args: unknown): string {
  if (typeof args === "string") return args;
  try {
    return JSON.stringify(args ?? {}, (_key, value) =>
      typeof value === "bigint" ? value.toString() : value,
    );
  } catch {
    return String(args);
  }
}

/**
 * The output's tool calls in the OpenAI wire shape, or null when there are none. The provider's id
 * is reused so the tool-result turn can reference it; without one, `call_` + 24 hex characters.
 */
export function buildToolCalls(output: ModelOutputThunk<unknown>): ToolCallDict[] | null {
  if (!hasToolCalls(output)) return null;
  return output.toolCalls!.map((toolCall) => ({
    id: toolCall.toolCallId || `call_${randomBytes(12).toString("hex")}`,
    type: "function",
    function: { name: toolCall.name, arguments: serialiseArguments(toolCall.args) },
  }));
}
