import type { NativeDecodeJob } from "./addon-types.js";

/** The native job behind a prefill, for the generation that waits for it (native `after`). */
export let nativeJobOf: (prefill: PrefixPrefill) => NativeDecodeJob;

/**
 * A prompt prefix being decoded into a sequence's KV cells ahead of its generation
 * (LlamaContext.prefillPrefix): a long prompt's first tokens prefill on the decode thread while this
 * thread still tokenizes the rest. A generation started with `afterPrefill: this` takes no sequence
 * until the prefill has finished, then reuses the cells of the prefix its own prompt shares. The cells
 * are a cache: a prefix that turns out not to match costs decode time, never a wrong token.
 */
export class PrefixPrefill {
  readonly #job: NativeDecodeJob;
  /** The context that started it: a generation of another context cannot wait for it. */
  readonly context: object;
  /** Tokens of the prefill's prompt (reusedPromptTokens of them were in the sequence already). */
  readonly promptTokens: number;

  constructor(context: object, job: NativeDecodeJob, promptTokens: number) {
    this.context = context;
    this.#job = job;
    this.promptTokens = promptTokens;
  }

  /** Whether the decode engine is done with it (decoded, found cached, cancelled or failed). */
  get finished(): boolean {
    return this.#job.getStats().finished;
  }

  /**
   * Prompt tokens it found already in the sequence it took (0 until it has finished): the rest it decoded.
   * All of them when a sequence held the whole prefix (the history of a chat's next turn).
   */
  get reusedPromptTokens(): number {
    return this.#job.getStats().reusedPromptTokens ?? 0;
  }

  /**
   * Stops it within one decode step (what it decoded stays in the cells) and gives up the sequence it
   * holds for its follower. Idempotent; a no-op once its context is disposed.
   */
  cancel(): void {
    try {
      this.#job.abort();
    } catch {
      // Disposed: nothing runs any more.
    }
  }

  static {
    nativeJobOf = (prefill) => prefill.#job;
  }
}
