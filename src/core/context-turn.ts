import type { Component } from "./component.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";
import type { Span } from "./span.js";

/** One turn of model input and model output; either side may be null for a partial turn. */
export class ContextTurn {
  /** The input of the turn, or null for an output-only partial turn. */
  readonly modelInput: Span | null;
  /**
   * The model's output thunk, a manually added response component (an assistant Message), or null for an
   * input-only partial turn. A raw CBlock is never an output.
   */
  readonly output: ModelOutputThunk<unknown> | Component<unknown> | null;

  constructor(modelInput: Span | null, output: ModelOutputThunk<unknown> | Component<unknown> | null) {
    this.modelInput = modelInput;
    this.output = output;
  }
}
