import type { AbstractTool } from "../../core/abstract-tool.js";
import { NoSuchToolError } from "../../core/errors/no-such-tool-error.js";
import { TesseraError } from "../../core/errors/tessera-error.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { ToolMessage } from "../../messages/components/tool-message.js";

export interface RunToolCallsOptions {
  /**
   * The tools that were offered. A call naming any other tool is a NoSuchToolError listing these, and nothing
   * runs. Default: trust the tool each call is bound to.
   */
  tools?: readonly AbstractTool[] | null;
  signal?: AbortSignal;
  /**
   * "throw" (default): the first bad call throws (unknown tool, arguments failing the schema, a throwing tool).
   * "message": a failure becomes a ToolMessage with the error text, so the model can correct itself.
   */
  onError?: "throw" | "message";
}

/**
 * Run the tool calls an output requested, in order, into ToolMessages to append to the context. Every call is
 * checked before any runs: an unknown tool name runs nothing. Arguments are validated by the tool's zod schema
 * before it runs (ModelToolCall.callFunc).
 */
export async function runToolCalls(
  output: ModelOutputThunk<unknown>,
  options: RunToolCallsOptions = {},
): Promise<ToolMessage[]> {
  const calls = output.toolCalls ?? [];
  const onError = options.onError ?? "throw";
  const offered = options.tools ? new Map(options.tools.map((tool) => [tool.name, tool])) : null;
  const unknown = offered === null ? [] : calls.filter((call) => !offered.has(call.name));
  if (unknown.length > 0 && onError === "throw")
    throw new NoSuchToolError(unknown[0]!.name, [...offered!.keys()]);

  const messages: ToolMessage[] = [];
  for (const call of calls) {
    options.signal?.throwIfAborted();
    if (offered !== null && !offered.has(call.name)) {
      const error = new NoSuchToolError(call.name, [...offered.keys()]);
      messages.push(new ToolMessage(call, null, `Error: ${error.message}`));
      continue;
    }
    try {
      messages.push(new ToolMessage(call, await call.callFunc(options.signal)));
    } catch (error) {
      if (onError === "throw") throw error;
      const text = TesseraError.isInstance(error) || error instanceof Error ? error.message : String(error);
      messages.push(new ToolMessage(call, null, `Error: ${text}`));
    }
  }
  return messages;
}
