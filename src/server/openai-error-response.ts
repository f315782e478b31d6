import { ContextOverflowError } from "../core/errors/context-overflow-error.js";
import type { ErrorKind } from "../core/errors/error-kind.js";
import { TesseraError } from "../core/errors/tessera-error.js";
import { UnsupportedInputError } from "../core/errors/unsupported-input-error.js";
import { InvalidRequestError } from "./errors/invalid-request-error.js";
import { ModelNotFoundError } from "./errors/model-not-found-error.js";
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

/** How one kind of error is answered; `null` is a 500 that does not show the caller internals. */
interface KindAnswer {
  status: number;
  type: string;
  /** The request field at fault when the kind implies one (an error may name a more precise one). */
  param: string | null;
  code: string | null;
}

const invalidRequest = (param: string | null, code: string | null, status = 400): KindAnswer => ({
  status,
  type: "invalid_request_error",
  param,
  code,
});

// Every kind gets a decision here (a new kind fails the type check until it has one). The kinds a request
// cannot cause, or that are the server's own failure, are a 500, as every unplanned error is.
const answerOfKind: Readonly<Record<ErrorKind, KindAnswer | null>> = {
  "invalid-option": invalidRequest(null, "invalid_value"),
  "invalid-input": invalidRequest(null, null),
  "invalid-media": invalidRequest("messages", "invalid_media"),
  "unsupported-input": invalidRequest("messages", "unsupported_input"),
  "unsupported-schema": invalidRequest("response_format", "unsupported_schema"),
  unsupported: invalidRequest(null, "unsupported"),
  "context-overflow": invalidRequest("messages", "context_length_exceeded"),
  "not-found": invalidRequest(null, "not_found", 404),
  unauthorized: invalidRequest(null, "invalid_api_key", 401),
  busy: { status: 503, type: "server_busy", param: null, code: "overloaded" },
  "invalid-argument": null,
  cancelled: null,
  timeout: null,
  unavailable: null,
  "invalid-state": null,
  "invalid-output": null,
  internal: null,
};

/**
 * Any error as an HTTP status and OpenAI error body, chosen by the error's `kind` (no backend's classes
 * are known here); unknown errors are a 500 without internals.
 */
export function toErrorResponse(
  error: unknown,
  limits: ServerLimits = {},
  /** The request field that holds the prompt: "messages" for chat, "prompt" for /v1/completions. */
  promptField: "messages" | "prompt" = "messages",
  /** The request field that set the output's length: max_completion_tokens when the request used it. */
  outputField: "max_tokens" | "max_completion_tokens" = "max_tokens",
  /** The request field whose schema made the generation's grammar (response_format, tools), if any. */
  grammarField: string | null = null,
): ErrorResponse {
  const answer = TesseraError.isInstance(error) ? answerOfKindOf(error) : null;
  if (TesseraError.isInstance(error) && answer !== null) {
    const { status, type, param, code } = answer;
    const headers: Record<string, string> = error.kind === "busy" ? { "retry-after": "1" } : {};
    // The server's own errors know the request field and code at fault.
    if (InvalidRequestError.isInstance(error))
      return response(status, error.message, type, error.param, error.code);
    if (ModelNotFoundError.isInstance(error))
      return response(status, error.message, type, "model", "model_not_found");
    if (error.kind === "invalid-option") return optionResponse(error, answer, grammarField);
    // The prompt fits and only the room asked for the output does not: the output's field is the one to change.
    // A schema the grammar cannot enforce came from the field that made the grammar (tools, or response_format).
    const field = !ContextOverflowError.isInstance(error)
      ? error.kind === "unsupported-schema" && grammarField !== null
        ? grammarField
        : param
      : (error.outputRoom ?? null) !== null
        ? outputField
        : promptField;
    return response(status, requestTermsMessage(error, promptField, outputField), type, field, code, headers);
  }
  const framework = frameworkRefusal(error, limits);
  if (framework !== null) return framework;
  const message =
    error instanceof Error
      ? error.message
      : error === null || error === undefined
        ? `the backend failed with ${String(error)} instead of an error (a bug in the backend)`
        : String(error);
  return response(500, `The generation failed: ${message}`, "server_error", null, "internal_error");
}

/**
 * The answer for an error's kind; null (an internal 500) for a kind outside the union: a subclass that set
 * a wrong one, or a TesseraError from an older copy of the package (recognised by its marker) with none.
 */
function answerOfKindOf(error: TesseraError): KindAnswer | null {
  const kind: unknown = error.kind;
  return typeof kind === "string" && Object.hasOwn(answerOfKind, kind)
    ? answerOfKind[kind as ErrorKind]
    : null;
}

/**
 * An option error in the request's terms (top_p, not topP) where the option comes from a request field.
 * Errors of kind "invalid-option" name the one option at fault in `optionName`, when there is one.
 */
/**
 * What a refused grammar was and the limit it passed, in the request's terms: both are read off the error
 * (`received`, `limit`), and a field that cannot be read (a getter that throws, a value of the wrong shape)
 * only leaves its part out, since this runs while answering another failure.
 */
function grammarRefusalTerms(error: TesseraError): { made: string; most: string } {
  const read = (key: string): unknown => {
    try {
      return key in error ? (error as unknown as Record<string, unknown>)[key] : undefined;
    } catch {
      return undefined;
    }
  };
  const received = read("received");
  const made = typeof received === "string" ? received : "a grammar";
  let most = "";
  try {
    const limit = read("limit") as { most?: unknown; unit?: unknown } | undefined;
    const bound = limit?.most;
    const unit = limit?.unit;
    if (
      typeof bound === "number" &&
      Number.isFinite(bound) &&
      bound > 0 &&
      typeof unit === "string" &&
      unit !== ""
    ) {
      most = `; constrained decoding takes at most ${bound} ${unit}`;
    }
  } catch {
    // A limit whose fields cannot be read is left out.
  }
  return { made, most };
}

function optionResponse(error: TesseraError, answer: KindAnswer, grammarField: string | null): ErrorResponse {
  const optionName = "optionName" in error && typeof error.optionName === "string" ? error.optionName : null;
  // No request has a grammar field: a refused grammar (too large, nested too deep) was made from a schema.
  if (optionName === "grammar" && grammarField !== null) {
    const { made, most } = grammarRefusalTerms(error);
    return response(
      answer.status,
      `The schema in ${grammarField} makes ${made}${most}. Simplify it: fewer properties, alternatives or nesting.`,
      answer.type,
      grammarField,
      answer.code,
    );
  }
  const field = optionName === null ? null : requestFieldOf(optionName);
  // "Invalid value for model option" is the library's wording; a request has fields.
  const message =
    optionName === null || field === null
      ? error.message
      : renameOption(error.message, optionName, field).replace(/\bmodel option\b/, "request field");
  return response(answer.status, message, answer.type, field, answer.code);
}

/** The library's message, reworded where it names library options (maxTokens) or APIs. */
function requestTermsMessage(
  error: TesseraError,
  promptField: "messages" | "prompt",
  outputField: "max_tokens" | "max_completion_tokens",
): string {
  if (ContextOverflowError.isInstance(error)) {
    const atLeast = error.promptTokensAtLeast ? "at least " : "";
    const needed =
      error.maxTokens === undefined
        ? `the prompt is ${atLeast}${error.promptTokens} tokens`
        : `the prompt is ${atLeast}${error.promptTokens} tokens and ${outputField} asks for ${error.maxTokens} more ` +
          `(${atLeast}${error.promptTokens + error.maxTokens} in all)`;
    // `?? null`: an error from an older copy of the package (matched by its marker) has no such getter.
    const room = error.outputRoom ?? null;
    const remedy =
      room !== null
        ? `Lower ${outputField} to at most ${room}.`
        : error.outputMayHelp
          ? `Shorten the ${promptField}, or lower ${outputField}.`
          : `Shorten the ${promptField}.`;
    return `This model's context holds ${error.contextSize} tokens per request, but ${needed}. ${remedy}`;
  }
  if (UnsupportedInputError.isInstance(error)) {
    return `The messages contain ${error.input}, which the served model cannot take. Remove those content parts.`;
  }
  return error.message;
}

/**
 * Fastify's own refusals (unparsable JSON, wrong content type, body too large), said in HTTP terms:
 * its FST_ERR_* codes and messages are the framework's internals, not something a client can act on.
 */
function frameworkRefusal(error: unknown, limits: ServerLimits): ErrorResponse | null {
  // Anything can be thrown, null and undefined included: only an object can be the framework's refusal.
  if (typeof error !== "object" || error === null) return null;
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
