import { CBlock } from "./cblock.js";
import { Component } from "./component.js";
import { NotASpanError } from "./errors/not-a-span-error.js";
import { ModelOutputThunk } from "./model-output-thunk.js";

/** Anything that can sit in a context or be sent to a model. */
export type Span = Component<unknown> | CBlock | ModelOutputThunk<unknown>;

/** Turn a string into a CBlock; CBlocks, Components and ModelOutputThunks pass through unchanged. */
export function blockify(value: string | Span): Span {
  if (typeof value === "string") return new CBlock(value);
  if (value instanceof CBlock || Component.isInstance(value) || ModelOutputThunk.isInstance(value))
    return value;
  throw new NotASpanError(value);
}
