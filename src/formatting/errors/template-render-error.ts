import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.TemplateRenderError");

/** A component template failed to compile or render (for example it used an undefined variable). */
export class TemplateRenderError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "internal";
  readonly componentName: string;
  readonly template: string;

  constructor(componentName: string, template: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Rendering the template of ${componentName} (${template}) failed: ${reason.trim()}\n` +
        "Check that every variable the template uses is in the representation's args.",
      { cause },
    );
    this.name = "TemplateRenderError";
    this.componentName = componentName;
    this.template = template;
  }

  static override isInstance(error: unknown): error is TemplateRenderError {
    return hasErrorMarker(error, marker);
  }
}
