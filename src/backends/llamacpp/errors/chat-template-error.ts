import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ChatTemplateError");

/** Where a chat template failed: it did not parse, or it failed while rendering (raise_exception included). */
export type ChatTemplateFailure = "parse" | "render";

/** The model's chat template could not be rendered; the template is never evaluated as code. */
export class ChatTemplateError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "internal";

  readonly failure: ChatTemplateFailure;
  readonly templateName: string;

  constructor(templateName: string, failure: ChatTemplateFailure, details: string) {
    const what = failure === "parse" ? "does not parse as Jinja" : "failed while rendering";
    super(
      `The chat template ${templateName} ${what}: ${details}. ` +
        "Pass `chatTemplate` to the backend (a Jinja string or the name of a built-in template such as " +
        '"chatml") to use another template, or fix the one in the GGUF file.',
    );
    this.name = "ChatTemplateError";
    this.failure = failure;
    this.templateName = templateName;
  }

  static override isInstance(error: unknown): error is ChatTemplateError {
    return hasErrorMarker(error, marker);
  }
}
