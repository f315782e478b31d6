/** The four clocks of one generation, in milliseconds. */
export interface OpenAITimeouts {
  /** Until the response headers arrive (TCP connect, TLS, the server accepting the request). */
  connectMs: number;
  /** From the request until the first token (prompt processing included). */
  firstTokenMs: number;
  /** Longest silence between two chunks of the body once it flows. */
  idleMs: number;
  /** The whole generation, retries included. */
  totalMs: number;
}

/** Retries happen only before the first token reached the caller; after that a fault fails the thunk. */
export interface OpenAIRetryPolicy {
  /** Retries after the first attempt (0 = never retry). */
  maxRetries: number;
  /** Delay before the first retry; doubles every retry, with jitter. */
  initialDelayMs: number;
  /** Cap on any delay, also on one the server asks for with retry-after. */
  maxDelayMs: number;
}

export const defaultTimeouts: OpenAITimeouts = {
  connectMs: 10_000,
  firstTokenMs: 60_000,
  idleMs: 30_000,
  totalMs: 600_000,
};

export const defaultRetryPolicy: OpenAIRetryPolicy = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 20_000,
};

/** Default cap on the bytes of one response body (case 14: a server that sends more than it should). */
export const defaultMaxResponseBytes = 32 * 1024 * 1024;

/**
 * The delay before retry number `retry` (1-based): the server's retry-after when it sent one, else
 * exponential backoff with ±25 % jitter so that many clients do not retry in lockstep; capped either way.
 */
export function retryDelayMs(policy: OpenAIRetryPolicy, retry: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 0), policy.maxDelayMs);
  const base = policy.initialDelayMs * 2 ** (retry - 1);
  const jitter = 1 + (Math.random() - 0.5) / 2;
  return Math.min(base * jitter, policy.maxDelayMs);
}

/** retry-after-ms (OpenAI's) or retry-after in seconds or as an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(headers: Headers): number | null {
  const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds)) return milliseconds;
  const value = headers.get("retry-after");
  if (value === null) return null;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
