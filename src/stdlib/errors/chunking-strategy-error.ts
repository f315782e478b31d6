import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ChunkingStrategyError");

/** A chunking strategy returned an empty chunk or one that is not a verbatim part of the text it was given. */
export class ChunkingStrategyError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  readonly strategy: string;
  readonly chunk: string;

  constructor(strategy: string, chunk: string) {
    super(
      `The chunking strategy "${strategy}" returned the chunk ${JSON.stringify(chunk.slice(0, 80))}, which is ` +
        "empty or not a verbatim substring of the text it split. split() must return non-empty parts of its " +
        "input, unchanged (it may drop the text between them).",
    );
    this.name = "ChunkingStrategyError";
    this.strategy = strategy;
    this.chunk = chunk;
  }

  static override isInstance(error: unknown): error is ChunkingStrategyError {
    return hasErrorMarker(error, marker);
  }
}
