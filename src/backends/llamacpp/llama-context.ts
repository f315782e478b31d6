import { ContextOverflowError } from "../../core/errors/context-overflow-error.js";
import type {
  FlashAttention,
  HugePageAdvice,
  NativeContext,
  NativeContextCounters,
  NativeContextInfo,
  NativeDecodeJob,
} from "./addon-types.js";
import { type ForkSource, forkPromptTokens } from "./branches/fork-prompt.js";
import { GrammarError } from "./errors/grammar-error.js";
import { IncompatibleOptionsError } from "./errors/incompatible-options-error.js";
import { InvalidOptionError } from "./errors/invalid-option-error.js";
import { LlamaDisposedError } from "./errors/llama-disposed-error.js";
import {
  type GenerateTokensOptions,
  type ResolvedGenerateOptions,
  resolveGenerateOptions,
} from "./native-generate-options.js";
import { checkTokens } from "./native-option-checks.js";
import { nativeJobOf, PrefixPrefill } from "./prefix-prefill.js";
import { TokenStream } from "./token-stream.js";

export interface LlamaContextOptions {
  /**
   * Tokens per sequence (prompt + output), 16 to 2^24. Default: the model's training context, at most
   * 4096. llama.cpp rounds the context up to a multiple of 256. contextSize × sequences must fit both
   * llama.cpp's 2^31 - 256 cells and the machine's memory (IncompatibleOptionsError).
   */
  readonly contextSize?: number;
  /**
   * Most tokens one decode step takes (prefill chunks + one per decoding sequence), 1 to 65536 and at
   * least `sequences` (IncompatibleOptionsError otherwise: llama.cpp aborts on it); at most 512 for a
   * model whose attention is not causal (llama.cpp takes its batches whole). Default 512.
   */
  readonly batchSize?: number;
  /** Sequences that decode in parallel, in one batch per step; 1 to 256 (llama.cpp's maximum). Default 1. */
  readonly sequences?: number;
  /**
   * CPU threads, 1 to 512 (ggml's maximum); default: physical cores. ggml spin-waits, so more threads
   * than free cores is far slower.
   */
  readonly threads?: number;
  /**
   * One KV buffer of contextSize × sequences cells shared by all sequences (prefix sharing without
   * copies; a sequence may then use more than contextSize, and a full pool ends generations with a
   * decode error). Default false: each sequence has its own contextSize cells.
   */
  readonly unifiedKvCache?: boolean;
  /**
   * Most prompt tokens one decode step takes (all sequences together), 1 to 65536, at most batchSize.
   * An abort is seen between steps; inside a step only the CPU backend can interrupt llama.cpp, so with
   * GPU layers this bounds how long an abort waits. Default: min(batchSize, 512) when the model has GPU
   * layers; on the CPU 256 for a shape whose attention scores outweigh its matrix products with flash
   * attention off (cpu-prefill-chunk-size.ts; the tiny models), else batchSize.
   */
  readonly prefillChunkSize?: number;
  /**
   * Flash attention: "auto" (llama.cpp decides: on where the backend supports it), "on" or "off".
   * Default: "off" on the CPU (there it made decoding at depth and a second chat turn's first token
   * slower, though a long prompt from empty prefills faster), "auto" when the model has GPU layers.
   */
  readonly flashAttention?: FlashAttention;
}

/** Options of LlamaContext.fork: the generation's options plus the token to continue after. */
export interface ForkOptions extends GenerateTokensOptions {
  /** The token placed at the fork point (an alternative); omitted: that position is sampled again. */
  readonly token?: number;
}

/**
 * Starts options that resolveGenerateOptions already checked against this context's sizes, so a caller
 * that validated them before deciding to start (the backend's prepareRequest) does not check them twice
 * on the request path. Not exported from the package: the options must come from resolveGenerateOptions.
 */
export let startResolved: (context: LlamaContext, resolved: ResolvedGenerateOptions) => TokenStream;

/**
 * A llama.cpp context with its own decode thread. Every generation started on it is queued until a
 * sequence is free; all running generations decode together, one llama_batch per step.
 */
export class LlamaContext implements AsyncDisposable {
  readonly #native: NativeContext;
  readonly #vocabSize: number;
  readonly #info: NativeContextInfo;
  readonly #flashAttention: FlashAttention;
  #disposed = false;
  #running = 0;

  /** @internal Created by LlamaModel.createContext. */
  constructor(native: NativeContext, vocabSize: number, flashAttention: FlashAttention = "auto") {
    this.#native = native;
    this.#vocabSize = vocabSize;
    this.#flashAttention = flashAttention;
    this.#info = native.getInfo();
  }

  /** All cells of the context (sequences × sequenceContextSize unless the KV cache is unified). */
  get contextSize(): number {
    return this.#info.contextSize;
  }
  /** What one generation (prompt + output) can hold. */
  get sequenceContextSize(): number {
    return this.#info.sequenceContextSize;
  }
  get sequences(): number {
    return this.#info.sequences;
  }
  get batchSize(): number {
    return this.#info.batchSize;
  }
  /** Most prompt tokens one decode step takes (an abort waits at most one step). */
  get prefillChunkSize(): number {
    return this.#info.prefillChunkSize;
  }
  get threads(): number {
    return this.#info.threads;
  }
  /** What creating the context did about transparent huge pages for its KV cache and compute buffers. */
  get hugePages(): HugePageAdvice {
    return this.#info.hugePages;
  }
  /** The flash attention setting the context was created with ("auto" leaves the choice to llama.cpp). */
  get flashAttention(): FlashAttention {
    return this.#flashAttention;
  }
  /** Generations started and not yet finished or left. */
  get runningGenerations(): number {
    return this.#running;
  }
  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Starts a generation from prompt tokens. Options are validated first (InvalidOptionError,
   * GrammarError, ContextOverflowError are thrown here, before any decoding). Decoding begins at once
   * in the background and pauses when the stream's queue is full.
   */
  generate(promptTokens: ArrayLike<number>, options: GenerateTokensOptions = {}): TokenStream {
    if (this.#disposed) throw new LlamaDisposedError("context");
    const prompt = checkTokens("promptTokens", promptTokens, this.#vocabSize);
    return this.#start(
      resolveGenerateOptions(prompt, options, this.#vocabSize, this.#info.sequenceContextSize),
    );
  }

  static {
    startResolved = (context, resolved) => {
      if (context.#disposed) throw new LlamaDisposedError("context");
      if (
        resolved.vocabSize !== context.#vocabSize ||
        resolved.sequenceContextSize !== context.#info.sequenceContextSize
      ) {
        throw new RangeError(
          `options resolved for a vocabulary of ${resolved.vocabSize} and sequences of ${resolved.sequenceContextSize} tokens cannot start on a context with ${context.#vocabSize} and ${context.#info.sequenceContextSize}; resolve them for this context`,
        );
      }
      return context.#start(resolved);
    };
  }

  #start(resolved: ResolvedGenerateOptions): TokenStream {
    const prompt = resolved.native.tokens;
    const config = {
      seed: resolved.seed,
      promptTokens: prompt.length,
      queueCapacity: resolved.queueCapacity,
      signal: resolved.signal,
    };
    const prefill = resolved.afterPrefill;
    if (prefill !== undefined && prefill.context !== this) {
      throw new IncompatibleOptionsError(
        "afterPrefill",
        "(a prefill of another context)",
        "afterPrefill was started on another context, whose cells this generation cannot reuse",
        "pass a prefill from this context's prefillPrefix, or none",
      );
    }
    // Aborted before the start: no native work at all, and none for its prefill either.
    if (resolved.signal?.aborted) {
      prefill?.cancel();
      return new TokenStream(undefined, config);
    }
    let job: NativeDecodeJob;
    try {
      job =
        prefill === undefined
          ? this.#native.generate(resolved.native)
          : this.#native.generate({ ...resolved.native, after: nativeJobOf(prefill) });
    } catch (error) {
      throw translateNativeError(
        error,
        prompt.length,
        this.#info.sequenceContextSize,
        resolved.native.grammar,
      );
    }
    this.#running++;
    // The stream holds the prefill's handle until it ends (a collected handle aborts its native job), and
    // its end stops a prefill still running: one aborted while it waited has no use for the rest.
    const onEnd = () => {
      this.#running--;
      prefill?.cancel();
    };
    return new TokenStream(job, { ...config, onEnd });
  }

  /**
   * Starts decoding a prompt's first tokens into a sequence's KV cells now, with nothing sampled, for a
   * generation that follows with `afterPrefill`: that generation waits for it, then reuses the cells of
   * the prefix its own prompt shares. For a long prompt, tokenize a first part, start its prefill, and
   * tokenize the whole prompt while it runs (the backend does this for prompts of 1,024 characters or
   * more). A prefix that turns out not to match costs decode time, never a wrong token; one a sequence
   * already holds whole (a chat's history) is left as it is. Cancel it if no generation follows.
   */
  prefillPrefix(promptTokens: ArrayLike<number>): PrefixPrefill {
    if (this.#disposed) throw new LlamaDisposedError("context");
    const prompt = checkTokens("promptTokens", promptTokens, this.#vocabSize);
    if (prompt.length === 0) throw new InvalidOptionError("promptTokens", "at least one token", "[]");
    if (prompt.length >= this.#info.sequenceContextSize)
      throw new ContextOverflowError(prompt.length, this.#info.sequenceContextSize);
    const job = this.#call(() =>
      this.#native.generate({
        tokens: prompt,
        greedy: true,
        seed: 0,
        maxTokens: 0,
        ignoreEos: false,
        promptLogprobs: false,
        reusePrefix: true,
        tokenLogprobs: false,
        queueCapacity: 1,
        prefillOnly: true,
      }),
    );
    return new PrefixPrefill(this, job, prompt.length);
  }

  /**
   * A new generation that continues `source` (a prompt and the token ids it generated) at
   * `atTokenIndex`: after `token` when one is given (an alternative), else by sampling that position
   * again (a re-sample, e.g. with other settings). Its prompt is built from ids and shares the source's
   * prefix, so the decode engine copies those KV cells (llama_memory_seq_cp) instead of prefilling them:
   * only the new token is decoded (`reusedPromptTokens` = the whole prefix). The cells must still be in
   * a sequence: a source that holds its sequence (a stream that is paused, not finished) is copied; a
   * finished source's sequence may be taken by the fork, which then cuts that source's tail. A
   * LlamaBranchPool keeps branches held and gives cells back least recently used first.
   */
  fork(source: ForkSource, atTokenIndex: number, options: ForkOptions = {}): TokenStream {
    const { token, ...generateOptions } = options;
    return this.generate(forkPromptTokens(source, atTokenIndex, token), generateOptions);
  }

  /** The decode engine's own counters: live sequences, prompt and generated tokens decoded, decode calls. */
  get counters(): NativeContextCounters {
    return this.#call(() => this.#native.getCounters());
  }

  /** Starts `counters.peakLiveSequences` again from the generations live now (e.g. per benchmark run). */
  resetPeakCounter(): void {
    this.#call(() => this.#native.resetPeakCounter());
  }

  /** Tokens whose KV cells a sequence currently holds (for prefix-reuse diagnostics). */
  sequenceTokens(sequence: number): Int32Array {
    return this.#call(() => this.#native.getSequenceTokens(sequence));
  }

  /**
   * A native call on this context, with LlamaDisposedError whether this context or its model was disposed
   * (disposing the model disposes its contexts natively, where this object's flag does not see it).
   */
  #call<T>(call: () => T): T {
    if (this.#disposed) throw new LlamaDisposedError("context");
    try {
      return call();
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === "ERR_DISPOSED")
        throw new LlamaDisposedError("context");
      throw error;
    }
  }

  /** Stops the decode thread (running generations end with "abort") and frees the context's memory. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#native.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }
}

function translateNativeError(
  error: unknown,
  promptTokens: number,
  contextSize: number,
  grammar?: string,
): unknown {
  const code = (error as { code?: string } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ERR_GRAMMAR":
      return new GrammarError(grammar ?? "", message.replace(/^the grammar does not parse: /, ""));
    case "ERR_CONTEXT_OVERFLOW":
      return new ContextOverflowError(promptTokens, contextSize);
    case "ERR_DISPOSED":
      return new LlamaDisposedError("context");
    case "ERR_TOKEN_OUT_OF_RANGE":
      return new InvalidOptionError("token id", "ids inside the vocabulary", message);
    default:
      return error;
  }
}
