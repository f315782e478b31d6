import type { ErrorKind } from "../../core/errors/error-kind.js";
import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufVocabUnavailableError";
const symbol = Symbol.for(marker);

/** The tokenizer source (a vocab GGUF inside node-llama-cpp's llama.cpp bundle) could not be extracted. */
export class GgufVocabUnavailableError extends GgufError {
  readonly [symbol] = true;

  override readonly kind: ErrorKind = "unavailable";
  readonly vocab: string;

  constructor(options: { vocab: string; problem: string; cause?: unknown }) {
    super(
      `Cannot get the vocabulary "${options.vocab}": ${options.problem}. It is extracted with git from ` +
        `node_modules/node-llama-cpp/llama/gitRelease.bundle; check that git is installed and node-llama-cpp ` +
        `is installed completely.`,
      { cause: options.cause },
    );
    this.name = "GgufVocabUnavailableError";
    this.vocab = options.vocab;
  }

  static override isInstance(error: unknown): error is GgufVocabUnavailableError {
    return GgufError.hasMarker(error, marker);
  }
}
