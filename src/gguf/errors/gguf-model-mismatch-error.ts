import type { ErrorKind } from "../../core/errors/error-kind.js";
import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufModelMismatchError";
const symbol = Symbol.for(marker);

/**
 * The file parses, but its parts disagree (bad-inputs case 5): token count differs from the embedding
 * rows, a special token id is out of range, a tensor is missing or has the wrong shape.
 */
export class GgufModelMismatchError extends GgufError {
  readonly [symbol] = true;

  override readonly kind: ErrorKind = "invalid-input";
  readonly problems: readonly string[];

  constructor(options: { problems: readonly string[] }) {
    super(
      `GGUF model is inconsistent: ${options.problems.join("; ")}. ` +
        `It would crash or read out of bounds at load; regenerate the model or fix its metadata.`,
    );
    this.name = "GgufModelMismatchError";
    this.problems = options.problems;
  }

  static override isInstance(error: unknown): error is GgufModelMismatchError {
    return GgufError.hasMarker(error, marker);
  }
}
