import { ContextOverflowError } from "../backends/llamacpp/errors/context-overflow-error.js";
import { GrammarError } from "../backends/llamacpp/errors/grammar-error.js";
import { InvalidSamplerOptionError } from "../backends/llamacpp/errors/invalid-sampler-option-error.js";
import { UnsupportedInputError } from "../backends/llamacpp/errors/unsupported-input-error.js";
import { UnsupportedJsonSchemaError } from "../backends/llamacpp/errors/unsupported-json-schema-error.js";
import { InvalidAudioError } from "../core/errors/invalid-audio-error.js";
import { InvalidImageError } from "../core/errors/invalid-image-error.js";
import { InvalidModelOptionError } from "../core/errors/invalid-model-option-error.js";
import { UnknownModelOptionError } from "../core/errors/unknown-model-option-error.js";
import { InvalidRequestError } from "./errors/invalid-request-error.js";
import { ServerBusyError } from "./errors/server-busy-error.js";
import { UnauthorizedError } from "./errors/unauthorized-error.js";

/** OpenAI's error body: what clients (the official SDKs included) parse. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface ErrorResponse {
  status: number;
  body: OpenAIErrorBody;
  headers: Record<string, string>;
}

function response(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
  headers: Record<string, string> = {},
): ErrorResponse {
  return { status, body: { error: { message, type, param, code } }, headers };
}

/** Any error as an HTTP status and OpenAI error body; unknown errors are a 500 without internals. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (InvalidRequestError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", error.param, error.code);
  }
  if (ContextOverflowError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", "messages", "context_length_exceeded");
  }
  if (UnsupportedJsonSchemaError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", "response_format", "unsupported_schema");
  }
  if (UnsupportedInputError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", "messages", "unsupported_input");
  }
  if (
    UnknownModelOptionError.isInstance(error) ||
    InvalidModelOptionError.isInstance(error) ||
    InvalidSamplerOptionError.isInstance(error) ||
    GrammarError.isInstance(error)
  ) {
    return response(400, error.message, "invalid_request_error", null, "invalid_value");
  }
  if (InvalidImageError.isInstance(error) || InvalidAudioError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", "messages", "invalid_media");
  }
  if (UnauthorizedError.isInstance(error))
    return response(401, error.message, "invalid_request_error", null, "invalid_api_key");
  if (ServerBusyError.isInstance(error)) {
    return response(503, error.message, "server_busy", null, "overloaded", { "retry-after": "1" });
  }
  const fastifyError = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (
    typeof fastifyError.statusCode === "number" &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    // Framework-level refusals: body too large (413), unparsable JSON or wrong content type (400/415).
    const code = typeof fastifyError.code === "string" ? fastifyError.code : null;
    return response(
      fastifyError.statusCode,
      String(fastifyError.message),
      "invalid_request_error",
      null,
      code,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return response(500, `The generation failed: ${message}`, "server_error", null, "internal_error");
}
