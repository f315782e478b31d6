import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAITimeoutError");

/** Which clock ran out: waiting for headers, for the first token, between chunks, or for the whole call. */
export type OpenAITimeoutPhase = "connect" | "first-token" | "idle" | "total";

const explanation: Record<OpenAITimeoutPhase, string> = {
  connect: "no response headers arrived",
  "first-token": "no token arrived",
  idle: "the stream went silent between chunks",
  total: "the whole generation took too long",
};

/** A timeout of the OpenAI backend ran out; the option to raise is named in the message. */
export class OpenAITimeoutError extends OpenAIBackendError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "timeout";

  readonly phase: OpenAITimeoutPhase;
  readonly timeoutMs: number;

  constructor(phase: OpenAITimeoutPhase, timeoutMs: number) {
    const option = { connect: "connectMs", "first-token": "firstTokenMs", idle: "idleMs", total: "totalMs" }[
      phase
    ];
    super(
      `Timed out after ${timeoutMs} ms: ${explanation[phase]}. Raise timeouts.${option} if the server is just slow.`,
      phase === "connect" || phase === "first-token",
    );
    this.name = "OpenAITimeoutError";
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }

  static override isInstance(error: unknown): error is OpenAITimeoutError {
    return hasErrorMarker(error, marker);
  }
}
