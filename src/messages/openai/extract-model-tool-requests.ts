import type { AbstractTool } from "../../core/abstract-tool.js";
import { ModelToolCall } from "../../core/model-tool-call.js";

export interface ExtractToolRequestsOptions {
  /** Receives one line per skipped call; defaults to `process.emitWarning`. */
  warn?: (message: string) => void;
}

interface ResponseToolCall {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

const defaultWarn = (message: string) => process.emitWarning(message, "TesseraToolCallWarning");

/**
 * The tool calls of an OpenAI-like response (`{ message: { tool_calls } }`) bound to their tools,
 * in order, keeping the provider's ids. Returns `null` (not `[]`) when there are none. Calls to
 * unknown tools and calls whose arguments are not valid JSON (often cut off by the token limit)
 * are skipped with a warning: they must never run.
 */
export function extractModelToolRequests(
  tools: Readonly<Record<string, AbstractTool<unknown, unknown>>>,
  response: { message: { tool_calls?: readonly unknown[] | null } },
  options: ExtractToolRequestsOptions = {},
): ModelToolCall[] | null {
  const warn = options.warn ?? defaultWarn;
  const requests: ModelToolCall[] = [];
  for (const raw of response.message.tool_calls ?? []) {
    const call = raw as ResponseToolCall | null;
    const name = call?.function?.name;
    if (typeof name !== "string") {
      warn(`Skipped a malformed tool call without a function name: ${JSON.stringify(raw)}`);
      continue;
    }
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool === undefined) {
      warn(
        `The model called a tool that does not exist: ${name}; known tools: ${Object.keys(tools).join(", ")}`,
      );
      continue;
    }
    const argumentsText = call?.function?.arguments;
    let args: unknown = {};
    if (typeof argumentsText === "string") {
      try {
        args = JSON.parse(argumentsText);
      } catch {
        warn(
          `The model returned malformed JSON arguments for tool "${name}" (possibly cut off by the token limit); ` +
            `skipped this call: ${argumentsText}`,
        );
        continue;
      }
    } else if (argumentsText != null) {
      args = argumentsText;
    }
    const id = typeof call?.id === "string" ? call.id : null;
    // ModelToolCall types its tool as AbstractTool<never, …>; any tool is acceptable there at runtime.
    requests.push(new ModelToolCall(name, tool as unknown as AbstractTool<never, unknown>, args, id));
  }
  return requests.length > 0 ? requests : null;
}
