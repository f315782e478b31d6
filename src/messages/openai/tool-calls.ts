import { randomBytes } from "node:crypto";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { ModelToolCall } from "../../core/model-tool-call.js";
import type { AssistantToolCall } from "../../core/template-representation.js";

/** An OpenAI-compatible tool call: the seed's `ToolCallDict`. */
export type ToolCallDict = AssistantToolCall;

// A fabricated id is remembered per call object: formatting the same history twice must give the
// same prompt (the tool-result turn refers to it, and a local backend reuses the cached prefix).
const fabricatedIds = new WeakMap<ModelToolCall, string>();

function idFor(toolCall: ModelToolCall): string {
  if (toolCall.toolCallId) return toolCall.toolCallId;
  let id = fabricatedIds.get(toolCall);
  if (id === undefined) {
    id = `call_${randomBytes(12).toString("hex")}`;
    fabricatedIds.set(toolCall, id);
  }
  return id;
}

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
 * is reused so the tool-result turn can reference it; without one, `call_` + 24 hex characters,
 * stable for the same call object.
 */
export function buildToolCalls(output: ModelOutputThunk<unknown>): ToolCallDict[] | null {
  if (!hasToolCalls(output)) return null;
  return output.toolCalls!.map((toolCall) => ({
    id: idFor(toolCall),
    type: "function",
    function: { name: toolCall.name, arguments: serialiseArguments(toolCall.args) },
  }));
}
