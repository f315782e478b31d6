// Typed chat messages (seed: calute.types.messages), the OpenAI-compatible helpers (seed:
// mellea.helpers.openai_compatible_helpers) and the chat components. Public names only.
export { AssistantMessage, type AssistantMessageInit, assistantMessageSchema } from "./assistant-message.js";
export {
  type ChatMessage,
  chatMessageFromOpenAI,
  chatMessageSchema,
  chatMessageToOpenAI,
} from "./chat-message.js";
export {
  type ContentChunk,
  contentChunkFromOpenAI,
  contentChunkSchema,
  contentChunkToOpenAI,
} from "./chunks/content-chunk.js";
export { ImageChunk, imageChunkSchema } from "./chunks/image-chunk.js";
export {
  type ImageURL,
  ImageURLChunk,
  imageUrlChunkSchema,
  imageUrlSchema,
} from "./chunks/image-url-chunk.js";
export { TextChunk, textChunkSchema } from "./chunks/text-chunk.js";
export * from "./components/index.js";
export { AudioUrlNotSupportedError } from "./errors/audio-url-not-supported-error.js";
export { InvalidMessageError } from "./errors/invalid-message-error.js";
export { MissingToolCallIdError } from "./errors/missing-tool-call-id-error.js";
export { indentLines, makeInstructionPrompt } from "./instruction-prompt.js";
export { MessagesHistory, messagesHistorySchema } from "./messages-history.js";
export * from "./openai/index.js";
export type {
  OpenAIAssistantMessage,
  OpenAIChatMessage,
  OpenAIContentPart,
  OpenAIImageUrlPart,
  OpenAIInputAudioPart,
  OpenAISystemMessage,
  OpenAITextPart,
  OpenAIToolCall,
  OpenAIToolMessage,
  OpenAIUserMessage,
} from "./openai-types.js";
export { type ChunkType, chunkTypeSchema, type Role, roleSchema, roles } from "./roles.js";
export { SystemMessage, systemMessageSchema } from "./system-message.js";
export { ToolCall, toolCallArgumentsText, toolCallSchema } from "./tool-call.js";
export { ToolResultMessage, toolResultMessageSchema } from "./tool-result-message.js";
export { UserMessage, userMessageSchema } from "./user-message.js";
