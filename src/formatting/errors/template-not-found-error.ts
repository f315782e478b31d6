import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.TemplateNotFoundError");

/** No `.njk` template exists for a component under any template folder. */
export class TemplateNotFoundError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "not-found";
  readonly componentName: string;
  readonly templateNames: readonly string[];
  readonly searchedRoots: readonly string[];

  constructor(componentName: string, templateNames: readonly string[], searchedRoots: readonly string[]) {
    super(
      `No template for component ${componentName}: looked for ${templateNames.map((name) => `${name}.njk`).join(", ")} ` +
        `under ${searchedRoots.join(", ")}. Add the file under a template folder (default/ or a model-family ` +
        "folder), or return a string or an inline `template` from formatForLlm().",
    );
    this.name = "TemplateNotFoundError";
    this.componentName = componentName;
    this.templateNames = templateNames;
    this.searchedRoots = searchedRoots;
  }

  static override isInstance(error: unknown): error is TemplateNotFoundError {
    return hasErrorMarker(error, marker);
  }
}
