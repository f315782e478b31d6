// tessera serve: an OpenAI-compatible HTTP server in front of any Backend.
export { ConcurrencyLimiter } from "./concurrency-limiter.js";
export {
  createTesseraApp,
  startTesseraServer,
  type TesseraServer,
  type TesseraServerOptions,
} from "./create-server.js";
export { ClientSideToolError } from "./errors/client-side-tool-error.js";
export { InvalidApiKeyError } from "./errors/invalid-api-key-error.js";
export { InvalidRequestError } from "./errors/invalid-request-error.js";
export { ModelNotFoundError } from "./errors/model-not-found-error.js";
export { ServerBusyError } from "./errors/server-busy-error.js";
export { UnauthorizedError } from "./errors/unauthorized-error.js";
export { JsonSchemaTool } from "./json-schema-tool.js";
export { type ErrorResponse, type OpenAIErrorBody, toErrorResponse } from "./openai-error-response.js";
export { chatCompletionRequestSchema, completionRequestSchema } from "./request-schemas.js";
export { ServerMetrics } from "./server-metrics.js";
