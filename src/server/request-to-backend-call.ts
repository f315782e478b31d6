import { z } from "zod";
import type { GenerateOptions } from "../core/backend.js";
import type { Context } from "../core/context.js";
import { AudioBlock } from "../core/media/audio-block.js";
import { ImageBlock } from "../core/media/image-block.js";
import { ImageUrlBlock } from "../core/media/image-url-block.js";
import type { ModelOptions } from "../core/model-options.js";
import { Message } from "../messages/components/message.js";
import { ChatContext } from "../stdlib/contexts/chat-context.js";
import { closeObjectSchemas } from "./close-object-schemas.js";
import { InvalidRequestError } from "./errors/invalid-request-error.js";
import { jsonObjectFormat } from "./json-object-format.js";
import { JsonSchemaTool } from "./json-schema-tool.js";
import { mediaAdvice, mediaProblem } from "./media-problem.js";
import type { ChatCompletionRequest, ChatMessageInput, SamplingRequest } from "./request-schemas.js";

/** A chat request as the arguments of one `generateFromContext` call. */
export interface ChatBackendCall {
  action: Message;
  context: Context;
  options: GenerateOptions<unknown>;
}

/**
 * The request field that sets the output's length, for messages about it: max_completion_tokens wins over
 * max_tokens when both are sent (as samplingToModelOptions reads them).
 */
export function outputLengthField(request: SamplingRequest): "max_tokens" | "max_completion_tokens" {
  return request.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
}

/** The model options a request's sampling fields ask for (nulls mean "not set"). */
export function samplingToModelOptions(request: SamplingRequest): ModelOptions {
  const options: ModelOptions = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) options.maxNewTokens = maxTokens;
  if (request.temperature != null) options.temperature = request.temperature;
  if (request.top_p != null) options.topP = request.top_p;
  if (request.top_k != null) options.topK = request.top_k;
  if (request.min_p != null) options.minP = request.min_p;
  if (request.typical_p != null) options.typicalP = request.typical_p;
  if (request.repetition_penalty != null) options.repeatPenalty = request.repetition_penalty;
  if (request.frequency_penalty != null) options.frequencyPenalty = request.frequency_penalty;
  if (request.presence_penalty != null) options.presencePenalty = request.presence_penalty;
  if (request.seed != null) options.seed = request.seed;
  if (request.stop != null)
    options.stopSequences = typeof request.stop === "string" ? [request.stop] : request.stop;
  if (request.logit_bias != null) options.logitBias = request.logit_bias;
  if (request.tessera_raw_logits_top_k != null) options.rawLogits = request.tessera_raw_logits_top_k;
  options.stream = request.stream === true;
  return options;
}

/**
 * A chat request as a backend call: history in a ChatContext, the last message as the action. With
 * `forwardToolChoice`, a "required" (or named) tool_choice becomes the backend's toolChoice option.
 */
export function chatRequestToBackendCall(
  request: ChatCompletionRequest,
  forwardToolChoice = false,
): ChatBackendCall {
  const messages = request.messages.map((message, index) => toMessage(message, index));
  let context: Context = new ChatContext();
  for (const message of messages.slice(0, -1)) context = context.add(message);
  if (request.top_logprobs != null && request.logprobs !== true) {
    // OpenAI refuses this too; answering without logprobs would look like a server that has none.
    throw new InvalidRequestError(
      'needs "logprobs": true; set it, or leave top_logprobs out',
      "top_logprobs",
    );
  }
  const modelOptions = samplingToModelOptions(request);
  if (request.logprobs === true) modelOptions.logits = Math.max(1, request.top_logprobs ?? 1);
  if (request.reasoning_effort != null) modelOptions.thinking = request.reasoning_effort;
  const options: GenerateOptions<unknown> = { modelOptions };
  if (request.tools != null && request.tools.length > 0 && request.tool_choice !== "none") {
    options.tools = request.tools.map((tool) => new JsonSchemaTool(tool));
    if (forwardToolChoice && request.tool_choice != null && request.tool_choice !== "auto") {
      // A named function narrows the offered tools to it; the model must then call it.
      const named = typeof request.tool_choice === "object" ? request.tool_choice.function.name : null;
      if (named !== null) options.tools = options.tools.filter((tool) => tool.name === named);
      if (options.tools.length === 0) {
        throw new InvalidRequestError(`no tool named "${named}" was declared`, "tool_choice");
      }
      (modelOptions as ModelOptions & { toolChoice?: string }).toolChoice = "required";
    }
  }
  const format = request.response_format;
  if (format?.type === "json_schema") options.format = schemaToZod(format.json_schema.schema);
  else if (format?.type === "json_object") options.format = jsonObjectFormat;
  return { action: messages.at(-1)!, context, options };
}

function schemaToZod(schema: Record<string, unknown>): z.ZodType<unknown> {
  // Refuses a schema too deep to walk with its own message, outside the catch below.
  const closed = closeObjectSchemas(schema) as Parameters<typeof z.fromJSONSchema>[0];
  try {
    return z.fromJSONSchema(closed) as z.ZodType<unknown>;
  } catch (error) {
    throw new InvalidRequestError(
      `the JSON schema could not be used (${(error as Error).message})`,
      "response_format.json_schema.schema",
    );
  }
}

function toMessage(input: ChatMessageInput, index: number): Message {
  const role = input.role === "developer" ? "system" : input.role;
  const texts: string[] = [];
  const images: Array<ImageBlock | ImageUrlBlock> = [];
  const audio: AudioBlock[] = [];
  const content = input.content ?? "";
  if (typeof content === "string") texts.push(content);
  else {
    content.forEach((part, partIndex) => {
      const partPath = `messages[${index}].content[${partIndex}]`;
      const param = part.type === "image_url" ? `${partPath}.image_url.url` : `${partPath}.input_audio.data`;
      try {
        if (part.type === "text") texts.push(part.text);
        else if (part.type === "image_url") {
          const url = part.image_url.url;
          images.push(url.startsWith("data:") ? new ImageBlock(url) : new ImageUrlBlock(url));
        } else audio.push(new AudioBlock(part.input_audio.data, { format: part.input_audio.format }));
      } catch (error) {
        const problem = mediaProblem(error);
        if (problem === null || part.type === "text") throw error;
        throw new InvalidRequestError(`${problem}. ${mediaAdvice[part.type]}.`, param, "invalid_media");
      }
    });
  }
  if (role === "tool" && input.tool_call_id === undefined) {
    throw new InvalidRequestError(
      "a tool message needs the tool_call_id it answers",
      `messages[${index}].tool_call_id`,
    );
  }
  return new Message(role, texts.join("\n"), {
    images: images.length > 0 ? images : null,
    audio: audio.length > 0 ? audio : null,
    toolCalls:
      input.tool_calls?.map((call) => ({
        id: call.id,
        type: "function" as const,
        function: call.function,
      })) ?? null,
    toolCallId: input.tool_call_id ?? null,
    thinking: input.reasoning_content ?? null,
  });
}
