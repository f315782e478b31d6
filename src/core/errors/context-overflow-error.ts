import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ContextOverflowError");

/** The prompt (plus the requested maxTokens) does not fit in one sequence of the context. */
export class ContextOverflowError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "context-overflow";

  readonly promptTokens: number;
  readonly maxTokens: number | undefined;
  readonly contextSize: number;
  /**
   * True when `promptTokens` is a lower bound (from the prompt's bytes, so a huge prompt is refused
   * without being tokenized), not an exact count.
   */
  readonly promptTokensAtLeast: boolean;

  constructor(
    promptTokens: number,
    contextSize: number,
    maxTokens?: number,
    options: {
      promptTokensAtLeast?: boolean;
      maxTokensOption?: string;
      /** "contextWindow" when that model option, smaller than the sequence, set the limit. */
      limitOption?: "contextSize" | "contextWindow";
    } = {},
  ) {
    const atLeast = options.promptTokensAtLeast === true;
    // The option that asked for the output, in the caller's words: `maxTokens` on LlamaContext.generate,
    // `maxNewTokens` as a backend's model option.
    const option = options.maxTokensOption ?? "maxTokens";
    const count = `${atLeast ? "at least " : ""}${promptTokens} tokens`;
    const needed =
      maxTokens === undefined
        ? `the prompt has ${count}`
        : `the prompt has ${count} and ${option} is ${maxTokens} (${atLeast ? "at least " : ""}${promptTokens + maxTokens} in all)`;
    // Lowering the output helps only when the prompt alone fits, and its room is known only from an exact
    // count (a lower bound could leave no room at all).
    const outputFits = maxTokens !== undefined && promptTokens < contextSize;
    const window = options.limitOption === "contextWindow";
    const larger = window ? "raise contextWindow" : "create the context with a larger contextSize";
    const remedy = !outputFits
      ? `Shorten the prompt, or ${larger}.`
      : atLeast
        ? `Shorten the prompt, lower ${option}, or ${larger}.`
        : `Lower ${option} to at most ${contextSize - promptTokens}, shorten the prompt, or ${larger}.`;
    const holds = window
      ? `the contextWindow option allows ${contextSize} tokens`
      : `a sequence of this context holds ${contextSize} tokens`;
    super(`Context overflow: ${needed}, but ${holds}. ${remedy} Nothing was decoded.`);
    this.name = "ContextOverflowError";
    this.promptTokens = promptTokens;
    this.maxTokens = maxTokens;
    this.contextSize = contextSize;
    this.promptTokensAtLeast = atLeast;
  }

  static override isInstance(error: unknown): error is ContextOverflowError {
    return hasErrorMarker(error, marker);
  }
}
