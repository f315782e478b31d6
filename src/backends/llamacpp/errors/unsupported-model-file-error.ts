import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { ModelLoadError } from "./model-load-error.js";

const marker = Symbol.for("tessera.error.UnsupportedModelFileError");

/**
 * The GGUF header is readable but describes something llama.cpp would abort on (duplicate token
 * texts, integer weights, a NaN epsilon, a tokenizer it cannot run, impossible layer or expert counts),
 * or the header itself is malformed. Refused before llama.cpp sees the file, so the process survives.
 */
export class UnsupportedModelFileError extends ModelLoadError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unsupported";

  /** What is wrong with the file, one entry per problem found. */
  readonly problems: readonly string[];

  constructor(path: string, problems: readonly string[], options?: { cause?: unknown }) {
    super(
      path,
      `the file is malformed or unsupported, and llama.cpp would crash on it: ${problems.join("; ")}`,
      options,
    );
    this.name = "UnsupportedModelFileError";
    this.problems = problems;
  }

  static override isInstance(error: unknown): error is UnsupportedModelFileError {
    return hasErrorMarker(error, marker);
  }
}
