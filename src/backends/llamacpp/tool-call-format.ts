// The tool-call format of the local backend. When tools are offered the model writes either plain text
// or one or more calls, each on its own line:
//
//   <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>
//
// The JSON of every call is grammar-constrained: `name` is one of the offered tools and `arguments`
// matches that tool's parameter schema, so a call always parses and validates (unless the token limit
// cuts it off). With toolChoice "auto" a text answer is allowed too (it cannot begin with "<"; once the
// model writes "<" it is writing a call); "required" allows calls only; "none" offers no tools.
import type { AbstractTool, JsonTool } from "../../core/abstract-tool.js";
import { ModelToolCall } from "../../core/model-tool-call.js";
import { grammarForJsonSchema } from "./json-schema-grammar.js";

export const toolCallOpen = "<tool_call>";
export const toolCallClose = "</tool_call>";
/** Most calls one answer may contain. */
export const maxToolCallsPerAnswer = 8;

export type ToolChoice = "auto" | "required" | "none";

/** The GBNF grammar for an answer that may (auto) or must (required) consist of tool calls. */
export async function toolCallGrammar(
  tools: readonly JsonTool[],
  choice: "auto" | "required",
): Promise<string> {
  const callSchema = {
    oneOf: tools.map((tool) => ({
      type: "object",
      properties: {
        name: { const: tool.function.name },
        arguments: tool.function.parameters,
      },
      required: ["name", "arguments"],
      additionalProperties: false,
    })),
    // Tool parameter schemas may carry their own $defs; lift them so their $refs resolve.
    ...liftedDefinitions(tools),
  };
  const json = await grammarForJsonSchema(callSchema, "tessera-tool-call-json");
  const rules = [
    `tessera-tool-call ::= "${toolCallOpen}" tessera-tool-call-json "${toolCallClose}"`,
    `tessera-tool-calls ::= tessera-tool-call ("\\n" tessera-tool-call){0,${maxToolCallsPerAnswer - 1}}`,
    // Text that does not start with "<": a tool call is the only way to start with it.
    `tessera-free-text ::= [^<\\x00] [^\\x00]*`,
    choice === "required" ? "root ::= tessera-tool-calls" : "root ::= tessera-tool-calls | tessera-free-text",
  ];
  return `${rules.join("\n")}\n${json}`;
}

function liftedDefinitions(tools: readonly JsonTool[]): { $defs?: Record<string, unknown> } {
  const definitions: Record<string, unknown> = {};
  for (const tool of tools) {
    const own = (tool.function.parameters as { $defs?: Record<string, unknown> }).$defs;
    if (own !== undefined) Object.assign(definitions, own);
  }
  return Object.keys(definitions).length > 0 ? { $defs: definitions } : {};
}

/** The system-prompt paragraph that tells the model which tools exist and how to call them. */
export function toolCallInstructions(tools: readonly JsonTool[], choice: "auto" | "required"): string {
  const descriptions = tools.map((tool) => JSON.stringify(tool.function)).join("\n");
  return (
    "You can call these tools (JSON descriptions, one per line):\n" +
    `${descriptions}\n` +
    `To call a tool, answer with ${toolCallOpen}{"name": <tool name>, "arguments": <arguments object>}${toolCallClose}` +
    ", one call per line" +
    (choice === "required" ? "; you must call at least one tool." : "; otherwise answer in plain text.")
  );
}

export interface ParsedToolCalls {
  /** The answer without its tool-call lines. */
  text: string;
  calls: ModelToolCall[];
  /** Calls that could not be used (cut off by the token limit, unknown tool), with the reason. */
  rejected: Array<{ text: string; reason: string }>;
}

/** Splits an answer into plain text and the calls it contains, bound to the offered tools. */
export function parseToolCalls(
  answer: string,
  tools: Readonly<Record<string, AbstractTool<unknown, unknown>>>,
): ParsedToolCalls {
  const calls: ModelToolCall[] = [];
  const rejected: ParsedToolCalls["rejected"] = [];
  if (!answer.startsWith(toolCallOpen)) return { text: answer, calls, rejected };
  let rest = answer;
  while (rest.startsWith(toolCallOpen)) {
    const end = rest.indexOf(toolCallClose);
    const body = rest.slice(toolCallOpen.length, end === -1 ? undefined : end);
    rest = end === -1 ? "" : rest.slice(end + toolCallClose.length).replace(/^\n/, "");
    if (end === -1) {
      rejected.push({ text: body, reason: "the call was cut off before </tool_call> (token limit)" });
      break;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      rejected.push({ text: body, reason: `not valid JSON (${(error as Error).message})` });
      continue;
    }
    const { name, arguments: args } = (parsed ?? {}) as { name?: unknown; arguments?: unknown };
    const tool = typeof name === "string" && Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool === undefined) {
      rejected.push({ text: body, reason: `no tool named ${JSON.stringify(name)}` });
      continue;
    }
    calls.push(
      new ModelToolCall(name as string, tool as AbstractTool<Record<string, unknown>, unknown>, args ?? {}),
    );
  }
  return { text: rest, calls, rejected };
}
