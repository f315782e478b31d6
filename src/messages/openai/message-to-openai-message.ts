import type { AudioBlock } from "../../core/media/audio-block.js";
import { AudioUrlBlock } from "../../core/media/audio-url-block.js";
import { ImageUrlBlock } from "../../core/media/image-url-block.js";
import type { AssistantToolCall } from "../../core/template-representation.js";
import type { Message } from "../components/message.js";
import { AudioUrlNotSupportedError } from "../errors/audio-url-not-supported-error.js";
import type { OpenAIContentPart, OpenAIInputAudioPart } from "../openai-types.js";

/** Anything that renders a message to text (a formatter); structural so this layer need not import one. */
export interface MessagePrinter {
  print(message: Message): string;
}

/** A message in the OpenAI chat-completions request shape. */
export interface OpenAIRequestMessage {
  role: Message["role"];
  content: string | null | Array<OpenAIContentPart | OpenAIInputAudioPart>;
  tool_calls?: AssistantToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
}

function imageUrl(image: NonNullable<Message["images"]>[number]): string {
  const value = image.value ?? "";
  if (image instanceof ImageUrlBlock) return value;
  // ImageBlock values may already carry the data URI prefix; never double it.
  return value.startsWith("data:") ? value : `data:image/png;base64,${value}`;
}

function audioPart(audio: NonNullable<Message["audio"]>[number]): OpenAIInputAudioPart {
  if (audio instanceof AudioUrlBlock) throw new AudioUrlNotSupportedError(audio.value ?? "");
  const block = audio as AudioBlock;
  const value = block.value ?? "";
  // The wire wants raw base64 in `data`, without the data URI prefix.
  const marker = value.indexOf("base64,");
  const data = marker === -1 ? value : value.slice(marker + "base64,".length);
  return { type: "input_audio", input_audio: { data, format: block.format } };
}

/**
 * A `Message` in the OpenAI request shape (seed: `message_to_openai_message`). Content is a string,
 * or a list of parts when images or audio are attached. A tool-only assistant turn has
 * `content: null` plus `tool_calls`; a tool result carries `tool_call_id` when known; the
 * reasoning trace goes out as `reasoning_content` only when `replayReasoning` is set.
 * With a `formatter`, content is rendered through the templates (so documents are included).
 */
export function messageToOpenAIMessage(
  message: Message,
  formatter: MessagePrinter | null = null,
  replayReasoning = false,
): OpenAIRequestMessage {
  const content = formatter ? formatter.print(message) : message.content;
  const images = message.images ?? null;
  const audio = message.audio ?? null;
  let result: OpenAIRequestMessage;
  if (images !== null || audio !== null) {
    const parts: Array<OpenAIContentPart | OpenAIInputAudioPart> = [{ type: "text", text: content }];
    for (const image of images ?? []) parts.push({ type: "image_url", image_url: { url: imageUrl(image) } });
    for (const clip of audio ?? []) parts.push(audioPart(clip));
    result = { role: message.role, content: parts };
  } else {
    result = { role: message.role, content };
  }
  if (message.toolCalls && message.toolCalls.length > 0) {
    result.tool_calls = message.toolCalls;
    if (images === null && !content) result.content = null;
  }
  if (message.toolCallId) result.tool_call_id = message.toolCallId;
  if (replayReasoning && message.thinking) result.reasoning_content = message.thinking;
  return result;
}
