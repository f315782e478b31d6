import { ComponentParseError } from "./errors/component-parse-error.js";
import type { AudioBlock } from "./media/audio-block.js";
import type { AudioUrlBlock } from "./media/audio-url-block.js";
import type { ImageBlock } from "./media/image-block.js";
import type { ImageUrlBlock } from "./media/image-url-block.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";
import type { Span } from "./span.js";
import type { TemplateRepresentation } from "./template-representation.js";

const marker = Symbol.for("tessera.Component");

/**
 * A composite structure meant to be represented to an LLM. `T` is what parse() extracts from the output.
 * Subclasses implement parts(), formatForLlm() and parseOutput(); callers use parse(), which wraps any
 * failure in a ComponentParseError.
 */
export abstract class Component<T = string> {
  readonly [marker] = true;

  /**
   * Images attached to the component. Leave undefined (absent) to let getImagesFromComponent fall back to
   * the images on formatForLlm()'s representation; null or [] means "none" and disables that fallback.
   */
  images?: Array<ImageBlock | ImageUrlBlock> | null;
  /** Audio attached to the component; same absent-versus-empty rule as `images`. */
  audio?: Array<AudioBlock | AudioUrlBlock> | null;

  /** The constituent sub-components and content blocks (may be empty for leaf components). */
  abstract parts(): Span[];

  /** The component as a TemplateRepresentation or plain string. Must be side-effect free: it may run more than once. */
  abstract formatForLlm(): TemplateRepresentation | string;

  /** Extract `T` from a computed thunk; any exception becomes a ComponentParseError. */
  parse(computed: ModelOutputThunk<T>): T {
    try {
      return this.parseOutput(computed);
    } catch (error) {
      if (ComponentParseError.isInstance(error)) throw error;
      throw new ComponentParseError(this.constructor.name, error);
    }
  }

  /** The component's own parsing (the seed's `_parse`). */
  protected abstract parseOutput(computed: ModelOutputThunk<T>): T;

  /** True for any Component, also one from another copy of this package. */
  static isInstance(value: unknown): value is Component<unknown> {
    return typeof value === "object" && value !== null && marker in value;
  }
}
