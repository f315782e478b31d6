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
    const room = outputRoomOf(promptTokens, contextSize, maxTokens, atLeast);
    const window = options.limitOption === "contextWindow";
    const larger = window ? "raise contextWindow" : "create the context with a larger contextSize";
    const remedy =
      room !== null
        ? `Lower ${option} to at most ${room}, shorten the prompt, or ${larger}.`
        : outputMayHelpOf(promptTokens, contextSize, maxTokens)
          ? `Shorten the prompt, lower ${option}, or ${larger}.`
          : `Shorten the prompt, or ${larger}.`;
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

  /**
   * The most output that fits, when only the output overflowed and the prompt was counted exactly: what
   * every surface offers as "lower the output to at most N". Null when the prompt alone overflows, when no
   * output limit was asked, or when the count is a lower bound (it could leave no room at all).
   */
  get outputRoom(): number | null {
    return outputRoomOf(this.promptTokens, this.contextSize, this.maxTokens, this.promptTokensAtLeast);
  }

  /** Whether a smaller output limit could help at all: one was asked and the prompt (or its bound) fits. */
  get outputMayHelp(): boolean {
    return outputMayHelpOf(this.promptTokens, this.contextSize, this.maxTokens);
  }

  static override isInstance(error: unknown): error is ContextOverflowError {
    return hasErrorMarker(error, marker);
  }
}

function outputMayHelpOf(promptTokens: number, contextSize: number, maxTokens: number | undefined): boolean {
  return maxTokens !== undefined && promptTokens < contextSize;
}

function outputRoomOf(
  promptTokens: number,
  contextSize: number,
  maxTokens: number | undefined,
  atLeast: boolean,
): number | null {
  return outputMayHelpOf(promptTokens, contextSize, maxTokens) && !atLeast
    ? contextSize - promptTokens
    : null;
}
