// The OpenAI chat-completions wire shapes this layer produces. Kept here (not taken from the
// `openai` package) because they are narrower: exactly what `toOpenAI()` emits.

export interface OpenAITextPart {
  type: "text";
  text: string;
}

export interface OpenAIImageUrlPart {
  type: "image_url";
  image_url: { url: string; detail?: string };
}

export interface OpenAIInputAudioPart {
  type: "input_audio";
  input_audio: { data: string; format: string };
}

export type OpenAIContentPart = OpenAITextPart | OpenAIImageUrlPart;

export interface OpenAIToolCall {
  id?: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface OpenAISystemMessage {
  role: "system";
  content: string | OpenAIContentPart[];
}

export interface OpenAIUserMessage {
  role: "user";
  content: string | OpenAIContentPart[];
}

export interface OpenAIAssistantMessage {
  role: "assistant";
  content: string;
  tool_calls?: OpenAIToolCall[];
  prefix?: true;
}

export interface OpenAIToolMessage {
  role: "tool";
  content: string;
  tool_call_id: string;
}

export type OpenAIChatMessage =
  | OpenAISystemMessage
  | OpenAIUserMessage
  | OpenAIAssistantMessage
  | OpenAIToolMessage;
