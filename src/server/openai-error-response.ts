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
import { ModelNotFoundError } from "./errors/model-not-found-error.js";
import { ServerBusyError } from "./errors/server-busy-error.js";
import { UnauthorizedError } from "./errors/unauthorized-error.js";
import { renameOption, requestFieldOf } from "./request-field-names.js";

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

/** What the server was configured with, for messages that state a limit. */
export interface ServerLimits {
  maxBodyBytes?: number;
}

/** Any error as an HTTP status and OpenAI error body; unknown errors are a 500 without internals. */
export function toErrorResponse(error: unknown, limits: ServerLimits = {}): ErrorResponse {
  if (InvalidRequestError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", error.param, error.code);
  }
  if (ModelNotFoundError.isInstance(error)) {
    return response(404, error.message, "invalid_request_error", "model", "model_not_found");
  }
  if (ContextOverflowError.isInstance(error)) {
    const needed =
      error.maxTokens === undefined
        ? `the prompt is ${error.promptTokens} tokens`
        : `the prompt is ${error.promptTokens} tokens and max_tokens asks for ${error.maxTokens} more ` +
          `(${error.promptTokens + error.maxTokens} in all)`;
    return response(
      400,
      `This model's context holds ${error.contextSize} tokens per request, but ${needed}. ` +
        "Shorten the messages (or prompt), or lower max_tokens.",
      "invalid_request_error",
      "messages",
      "context_length_exceeded",
    );
  }
  if (UnsupportedJsonSchemaError.isInstance(error)) {
    return response(400, error.message, "invalid_request_error", "response_format", "unsupported_schema");
  }
  if (UnsupportedInputError.isInstance(error)) {
    return response(
      400,
      `The messages contain ${error.input}, which the served model cannot take. Remove those content parts.`,
      "invalid_request_error",
      "messages",
      "unsupported_input",
    );
  }
  if (InvalidModelOptionError.isInstance(error) || InvalidSamplerOptionError.isInstance(error)) {
    // Named in the request's terms (top_p, not topP) where the option comes from a request field.
    const field = requestFieldOf(error.optionName);
    // "Invalid value for model option" is the library's wording; a request has fields.
    const message =
      field === null
        ? error.message
        : renameOption(error.message, error.optionName, field).replace(/\bmodel option\b/, "request field");
    return response(400, message, "invalid_request_error", field, "invalid_value");
  }
  if (UnknownModelOptionError.isInstance(error) || GrammarError.isInstance(error)) {
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
  const framework = frameworkRefusal(error, limits);
  if (framework !== null) return framework;
  const message = error instanceof Error ? error.message : String(error);
  return response(500, `The generation failed: ${message}`, "server_error", null, "internal_error");
}

/**
 * Fastify's own refusals (unparsable JSON, wrong content type, body too large), said in HTTP terms:
 * its FST_ERR_* codes and messages are the framework's internals, not something a client can act on.
 */
function frameworkRefusal(error: unknown, limits: ServerLimits): ErrorResponse | null {
  const fastifyError = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  const status = fastifyError.statusCode;
  if (typeof status !== "number" || status < 400 || status >= 500) return null;
  const send = "Send the request body as JSON with the header Content-Type: application/json";
  switch (fastifyError.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return response(400, `The request body is not valid JSON. ${send}.`, "invalid_request_error");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return response(400, `The request body is empty. ${send}.`, "invalid_request_error");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return response(415, `Unsupported Content-Type. ${send}.`, "invalid_request_error");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return response(
        413,
        `The request body is larger than this server accepts${bytes(limits.maxBodyBytes)}. Send fewer or ` +
          "smaller images, or less text (the server's operator sets the limit: `tessera serve --max-body-bytes`).",
        "invalid_request_error",
      );
    case "FST_ERR_BAD_URL":
      return response(
        400,
        "The URL has a malformed percent escape (a % not followed by two hex digits). Percent-encode the path.",
        "invalid_request_error",
      );
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return response(
        400,
        "The Content-Length header does not match the body sent.",
        "invalid_request_error",
      );
    default: {
      const message = String(fastifyError.message ?? "The request was refused");
      return response(status, message.replace(/^FST_\w+:?\s*/, ""), "invalid_request_error");
    }
  }
}

function bytes(limit: number | undefined): string {
  return limit === undefined ? "" : ` (${limit} bytes)`;
}
