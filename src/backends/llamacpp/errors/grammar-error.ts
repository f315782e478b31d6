import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.GrammarError");

/** A GBNF grammar did not parse; raised before any decoding. */
export class GrammarError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly grammar: string;

  constructor(grammar: string, details: string) {
    super(
      `The GBNF grammar does not parse: ${details}. Check the rule named by grammarRoot ("root" by default) ` +
        "exists and every rule it references is defined (see llama.cpp's grammars/README.md).",
    );
    this.name = "GrammarError";
    this.grammar = grammar;
  }

  static override isInstance(error: unknown): error is GrammarError {
    return hasErrorMarker(error, marker);
  }
}
