export {
  type ChoiceDelta,
  type ChunkChoice,
  chatCompletionDeltaMerge,
  type LogprobsDelta,
  type MergedChoice,
  type MergedToolCall,
  type ToolCallDelta,
} from "./chat-completion-delta-merge.js";
export { buildCompletionUsage, type CompletionUsage } from "./completion-usage.js";
export { type ExtractToolRequestsOptions, extractModelToolRequests } from "./extract-model-tool-requests.js";
export {
  type MessagePrinter,
  messageToOpenAIMessage,
  type OpenAIRequestMessage,
} from "./message-to-openai-message.js";
export { type DocumentDict, messagesToDocs } from "./messages-to-docs.js";
export { shouldReplayReasoning } from "./should-replay-reasoning.js";
export { buildToolCalls, hasToolCalls, type ToolCallDict } from "./tool-calls.js";
