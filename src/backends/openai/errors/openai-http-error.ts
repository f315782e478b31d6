import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAIHttpError");

const advice: Record<number, string> = {
  400: "The server refused the request; check the model options and messages.",
  401: "Check the API key (option apiKey or OPENAI_API_KEY).",
  403: "The API key may not use this model or endpoint.",
  404: "Check the base URL (it usually ends in /v1) and the model name.",
  429: "The server is rate limiting; lower the request rate or raise retry.maxRetries.",
};

/** The server answered with an HTTP error status instead of a completion. */
export class OpenAIHttpError extends OpenAIBackendError {
  readonly [marker] = true;

  readonly status: number;
  /** The start of the error body the server sent (capped). */
  readonly body: string;
  /** Delay the server asked for (retry-after / retry-after-ms), in milliseconds; null when none. */
  readonly retryAfterMs: number | null;
  /** Read from the status, so a caller (or tessera serve in front of this backend) can act on it. */
  override readonly kind: ErrorKind;

  constructor(url: string, status: number, body: string, retryAfterMs: number | null) {
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const hint =
      advice[status] ??
      (status >= 500 ? "The server failed; retry later or check its logs." : "Check the request.");
    super(`${url} answered HTTP ${status}: ${summarise(body)}. ${hint}`, retryable);
    this.name = "OpenAIHttpError";
    this.status = status;
    this.body = body;
    this.retryAfterMs = retryAfterMs;
    this.kind = kindOfStatus(status);
  }

  static override isInstance(error: unknown): error is OpenAIHttpError {
    return hasErrorMarker(error, marker);
  }
}

function kindOfStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 404) return "not-found";
  if (status === 408 || status === 504) return "timeout";
  if (status === 429) return "busy";
  if (status >= 400 && status < 500) return "invalid-input";
  return "unavailable";
}

// OpenAI-shaped error bodies carry the useful line in error.message.
function summarise(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === "string") return parsed.error.message;
  } catch {}
  return body.length === 0 ? "(empty body)" : body.slice(0, 200);
}
