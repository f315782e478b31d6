// The OpenAI-compatible backend: any chat-completions server (OpenAI, vLLM, llama-server, tessera serve).
export { ProviderFieldsTargetError } from "../../core/errors/provider-fields-target-error.js";
export { buildChatRequest, type ChatRequest, rawLogitsExtensionField } from "./build-chat-request.js";
export { OpenAIBackendError } from "./errors/openai-backend-error.js";
export { OpenAIConfigurationError } from "./errors/openai-configuration-error.js";
export { OpenAIConnectionError } from "./errors/openai-connection-error.js";
export { OpenAIHttpError } from "./errors/openai-http-error.js";
export { OpenAIIncompleteStreamError } from "./errors/openai-incomplete-stream-error.js";
export { OpenAIMalformedStreamError } from "./errors/openai-malformed-stream-error.js";
export { OpenAIProviderError } from "./errors/openai-provider-error.js";
export { OpenAIResponseTooLargeError } from "./errors/openai-response-too-large-error.js";
export { OpenAITimeoutError, type OpenAITimeoutPhase } from "./errors/openai-timeout-error.js";
export {
  defaultMaxResponseBytes,
  defaultRetryPolicy,
  defaultTimeouts,
  type OpenAIRetryPolicy,
  type OpenAITimeouts,
  parseRetryAfter,
  retryDelayMs,
} from "./fault-policy.js";
export { logprobsToTrace } from "./logprobs-trace.js";
export { OpenAIBackend, type OpenAIBackendOptions } from "./openai-backend.js";
export {
  type RawLogitsEntry,
  type RawLogitsExtension,
  rawLogitsFromExtension,
  rawLogitsToExtension,
} from "./raw-logits-extension.js";
export { type ServerSentEvent, SseDecoder } from "./sse-decoder.js";
