import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ModelLoadError");

/** llama.cpp refused a model file (missing, truncated, unsupported architecture, mismatched tensors). */
export class ModelLoadError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  readonly path: string;

  constructor(path: string, details: string, options?: { cause?: unknown }) {
    super(
      `Could not load the model ${path}: ${details}. Check that the file is a complete GGUF model of an ` +
        "architecture llama.cpp supports (`readGgufFile()` and `validateLlamaModel()` show what is wrong with a broken file).",
      options,
    );
    this.name = "ModelLoadError";
    this.path = path;
  }

  static override isInstance(error: unknown): error is ModelLoadError {
    return hasErrorMarker(error, marker);
  }
}
