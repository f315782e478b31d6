import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ChatTemplateLimitError");

/** Which limit of the chat-template sandbox was hit. */
export type ChatTemplateLimit = "templateChars" | "outputChars" | "timeMs" | "memory";

/** A chat template was refused or stopped because it exceeded a sandbox limit (size, output, time, memory). */
export class ChatTemplateLimitError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "internal";

  readonly limit: ChatTemplateLimit;
  /** The configured limit (characters, milliseconds or MiB); null when the runtime reported it. */
  readonly allowed: number | null;
  /** What was measured, when known. */
  readonly measured: number | null;

  constructor(
    templateName: string,
    limit: ChatTemplateLimit,
    allowed: number | null,
    measured: number | null,
  ) {
    const descriptions: Record<ChatTemplateLimit, string> = {
      templateChars: `is ${measured} characters long, over the limit of ${allowed}`,
      outputChars: `produced ${measured ?? "more than " + allowed} characters, over the limit of ${allowed}`,
      timeMs: `did not finish rendering within ${allowed} ms and was stopped`,
      memory: `ran out of the ${allowed ?? "configured"} MiB of memory its sandbox may use and was stopped`,
    };
    super(
      `The chat template ${templateName} ${descriptions[limit]}. Nothing was generated. ` +
        "If the template is trusted, raise the limit with the backend's `chatTemplateLimits` option; " +
        "otherwise pass `chatTemplate` to use a built-in template instead.",
    );
    this.name = "ChatTemplateLimitError";
    this.limit = limit;
    this.allowed = allowed;
    this.measured = measured;
  }

  static override isInstance(error: unknown): error is ChatTemplateLimitError {
    return hasErrorMarker(error, marker);
  }
}
