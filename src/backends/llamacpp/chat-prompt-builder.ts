import type { JsonTool } from "../../core/abstract-tool.js";
import { UnsupportedInputError } from "../../core/errors/unsupported-input-error.js";
import type { Message } from "../../messages/components/message.js";
import {
  type MessagePrinter,
  messageToOpenAIMessage,
} from "../../messages/openai/message-to-openai-message.js";
import { renderBuiltinChatTemplate } from "./builtin-chat-template-renderer.js";
import { isBuiltinChatTemplateSource } from "./builtin-chat-templates.js";
import type { ChatTemplateSandbox } from "./chat-template-sandbox.js";
import { toolCallInstructions } from "./tool-call-format.js";

/** A chat template with the name errors and logs show ("gguf:<file>" or "builtin:chatml"). */
export interface ChatTemplateSource {
  readonly name: string;
  readonly source: string;
}

export interface ChatPromptInput {
  readonly messages: readonly Message[];
  /** Renders message content through the component templates (so documents are included). */
  readonly printer: MessagePrinter;
  readonly systemPrompt?: string | undefined;
  /** Tools offered to the model, with the way they may be used. */
  readonly tools: readonly JsonTool[];
  readonly toolChoice: "auto" | "required";
  readonly bosToken: string;
  readonly eosToken: string;
}

/** A message as chat templates expect it (the Hugging Face / OpenAI shape). */
interface TemplateMessage {
  role: string;
  content: string;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: unknown } }>;
  tool_call_id?: string;
}

/** The message list a chat template receives: system prompt and tool instructions first. */
export function templateMessages(input: ChatPromptInput): TemplateMessage[] {
  const messages = input.messages.map((message) => toTemplateMessage(message, input.printer));
  const systemParts: string[] = [];
  if (input.systemPrompt !== undefined && input.systemPrompt !== "") systemParts.push(input.systemPrompt);
  if (input.tools.length > 0) systemParts.push(toolCallInstructions(input.tools, input.toolChoice));
  if (systemParts.length === 0) return messages;
  const first = messages[0];
  // One system turn: several templates reject a second one, or a system turn that is not first.
  if (first?.role === "system") {
    return [{ ...first, content: [...systemParts, first.content].join("\n\n") }, ...messages.slice(1)];
  }
  return [{ role: "system", content: systemParts.join("\n\n") }, ...messages];
}

/**
 * The largest input (the template variables as JSON, in characters) a built-in template renders in this
 * thread. A render here has none of the sandbox's time and memory limits and blocks the event loop (a
 * server's included): 100,000 short messages took seconds in-thread, where the sandbox stops at its
 * memory limit. Below this bound a render takes well under a millisecond per KiB.
 */
export const maxInThreadTemplateInputChars = 256 * 1024;

/**
 * The prompt text, ending with the assistant turn's opening: a built-in template (byte for byte) over an
 * input of at most maxInThreadTemplateInputChars is rendered in this thread, anything else in the sandbox.
 */
export function renderChatPrompt(
  sandbox: ChatTemplateSandbox,
  template: ChatTemplateSource,
  input: ChatPromptInput,
): Promise<string> {
  try {
    const variables = {
      messages: templateMessages(input),
      ...(input.tools.length > 0 && { tools: input.tools }),
      add_generation_prompt: true,
      bos_token: input.bosToken,
      eos_token: input.eosToken,
    };
    if (!isBuiltinChatTemplateSource(template.source)) {
      return sandbox.render(template.source, variables, template.name);
    }
    // The sandbox copies variables as JSON; the same copy here keeps the two renders of one input equal.
    const json = JSON.stringify(variables);
    if (json.length > maxInThreadTemplateInputChars) {
      return sandbox.render(template.source, variables, template.name);
    }
    const plainVariables = JSON.parse(json) as Record<string, unknown>;
    return Promise.resolve(
      renderBuiltinChatTemplate(
        template.source,
        plainVariables,
        template.name,
        sandbox.limits.maxOutputChars,
      ),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

function toTemplateMessage(message: Message, printer: MessagePrinter): TemplateMessage {
  if ((message.images?.length ?? 0) > 0 || (message.audio?.length ?? 0) > 0) {
    throw new UnsupportedInputError(
      message.images?.length ? "images" : "audio",
      "the llama.cpp backend runs text-only models",
    );
  }
  const wire = messageToOpenAIMessage(message, printer);
  const result: TemplateMessage = {
    role: wire.role,
    content: typeof wire.content === "string" ? wire.content : "",
  };
  if (wire.tool_calls !== undefined) {
    // Templates usually print arguments with `| tojson`, so they get the object, not its JSON text.
    result.tool_calls = wire.tool_calls.map((call) => ({
      id: call.id,
      type: call.type,
      function: { name: call.function.name, arguments: parseArguments(call.function.arguments) },
    }));
  }
  if (wire.tool_call_id !== undefined) result.tool_call_id = wire.tool_call_id;
  return result;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
