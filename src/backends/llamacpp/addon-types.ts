// The whole contract with native/ (tessera.node) in one place: every export of the addon with its types
// (the loader is native-addon.ts). Nothing outside src/backends/llamacpp/ talks to the addon; the thin
// wrappers (llama-model.ts, llama-context.ts, token-stream.ts) validate every argument before calling in,
// so the C++ side can trust what it receives (it still bounds-checks token ids).

/** Error codes the addon puts on the errors it throws or rejects with (`error.code`). */
export type NativeErrorCode =
  | "ERR_INVALID_ARGUMENT"
  | "ERR_INVALID_STATE"
  | "ERR_DISPOSED"
  | "ERR_MODEL_LOAD"
  | "ERR_ABORTED"
  | "ERR_CONTEXT_CREATE"
  | "ERR_CONTEXT_OVERFLOW"
  | "ERR_EMPTY_PROMPT"
  | "ERR_TOKEN_OUT_OF_RANGE"
  | "ERR_GRAMMAR"
  | "ERR_SAMPLER"
  | "ERR_TOKENIZE"
  | "ERR_DETOKENIZE"
  | "ERR_PULL_PENDING"
  | "ERR_NO_CPU_BACKEND"
  | "ERR_CAPTURE_BUDGET";

/** Codes in `NativeDecodeJobStats.errorCode` when a decode job ended with finishReason "error" (`NativeDecodeError.code`). */
export type NativeDecodeErrorCode =
  | "ERR_NON_FINITE_LOGITS"
  | "ERR_NO_CANDIDATES"
  | "ERR_DECODE"
  | "ERR_CONTEXT_DISPOSED"
  /** llama.cpp threw on the decode thread (a grammar rejecting a token, a bad vocabulary). */
  | "ERR_NATIVE_EXCEPTION"
  | "ERR_OUT_OF_MEMORY";

export interface NativeDevice {
  readonly name: string;
  readonly description: string;
  readonly type: "cpu" | "gpu" | "igpu" | "accelerator";
  readonly memoryFree: number;
  readonly memoryTotal: number;
}

export interface NativeModelMetadata {
  readonly vocabSize: number;
  readonly trainContextSize: number;
  readonly embeddingSize: number;
  readonly layerCount: number;
  readonly parameterCount: number;
  readonly sizeBytes: number;
  readonly description: string;
  readonly architecture: string;
  readonly name: string;
  readonly chatTemplate: string | null;
  /** Special token ids; -1 when the vocabulary has none. */
  readonly bos: number;
  readonly eos: number;
  readonly eot: number;
  readonly newline: number;
  readonly padding: number;
  readonly addBos: boolean;
  readonly addEos: boolean;
  readonly endOfGenerationTokens: Int32Array;
  /** Every GGUF key/value as llama.cpp renders it to text. */
  readonly values: Readonly<Record<string, string>>;
}

export interface NativeLoadModelOptions {
  readonly gpuLayers: number;
  readonly useMmap: boolean;
  /** Advise transparent huge pages for the memory the load allocates (and its contexts'). Default true. */
  readonly hugePages?: boolean;
}

/**
 * What a model load or a context creation did about transparent huge pages (native/src/huge-pages.h):
 * the anonymous memory that appeared in the process during the call (repacked weights, KV cache, output
 * and compute buffers, and whatever another thread mapped meanwhile: another load at the same time, the
 * loader thread's malloc arena), in whole 2 MiB pages of ranges of 8 MiB or more.
 */
export interface HugePageAdvice {
  /** The hugePages option of the load. */
  readonly requested: boolean;
  /**
   * Whether asking gives this process huge pages: Linux, with transparent huge pages not "never" and not
   * disabled for the process (prctl PR_SET_THP_DISABLE). When false nothing was advised.
   */
  readonly supported: boolean;
  /** Bytes advised to use huge pages (MADV_HUGEPAGE). */
  readonly advisedBytes: number;
  /**
   * Bytes of those on huge pages when the call returned: written after the advice (faulted in as huge
   * pages) or collapsed (MADV_COLLAPSE, Linux 6.1+). The rest had not been touched yet (its first touch
   * gets a huge page) or, when `error` is set, stays on small pages until khugepaged gets to it.
   */
  readonly collapsedBytes: number;
  /**
   * The first madvise failure's errno name, or null: "EINVAL" (the kernel would not collapse a page in
   * memory: no MADV_COLLAPSE before Linux 6.1), "EAGAIN" (it could not then: no free huge page, or
   * another thread was writing it), "ENOMEM" (a range unmapped meanwhile). Nothing fails because of it.
   */
  readonly error: string | null;
}

export interface NativeModelLoad {
  readonly promise: Promise<NativeModel>;
  /** Makes llama.cpp's progress callback return false; the promise rejects with code ERR_ABORTED. */
  abort(): void;
}

export interface NativeModel {
  tokenize(text: string, addSpecial: boolean, parseSpecial: boolean): Int32Array;
  detokenize(tokens: Int32Array, removeSpecial: boolean, unparseSpecial: boolean): string;
  tokenToPiece(token: number, special: boolean): Uint8Array;
  /** The longest token's text in bytes (special tokens rendered), found at load; 0 when that scan failed. */
  longestPieceBytes(): number;
  /**
   * The tokens llama.cpp splits a text at when it parses special tokens (control, user-defined, unknown),
   * in vocabulary order: ids, llama_token_attr bits, and each one's vocabulary text as UTF-8 bytes.
   */
  specialTokens(): { ids: Int32Array; attributes: Uint32Array; texts: Uint8Array[] };
  hugePages(): HugePageAdvice;
  getMetadata(): NativeModelMetadata;
  createContext(options: NativeContextOptions): Promise<NativeContext>;
  /** Disposes every context of this model first (their generations end with "abort"). */
  dispose(): void;
  isDisposed(): boolean;
}

export interface NativeContextOptions {
  /** Cells per sequence. */
  readonly contextSize: number;
  readonly batchSize: number;
  readonly sequences: number;
  readonly threads: number;
  readonly batchThreads: number;
  readonly unifiedKvCache: boolean;
  /** Most prompt tokens per decode step (abort is checked between steps); missing or 0 = batchSize. */
  readonly prefillChunkSize?: number;
  /** llama.cpp's flash_attn_type; missing = "auto" (llama.cpp's default). */
  readonly flashAttention?: FlashAttention;
}

/** Flash attention of a context: llama.cpp's choice ("auto": on where the backend supports it), on or off. */
export type FlashAttention = "auto" | "on" | "off";

export interface NativeContextInfo {
  readonly contextSize: number;
  readonly sequenceContextSize: number;
  readonly sequences: number;
  readonly batchSize: number;
  readonly prefillChunkSize: number;
  readonly threads: number;
  readonly hugePages: HugePageAdvice;
}

/** Everything optional is "off" when missing. Validated in TypeScript before it gets here. */
export interface NativeGenerateOptions {
  readonly tokens: Int32Array;
  readonly greedy: boolean;
  readonly seed: number;
  readonly temperature?: number;
  readonly topK?: number;
  readonly topP?: number;
  readonly minP?: number;
  readonly typicalP?: number;
  readonly penaltyLastN?: number;
  readonly repeatPenalty?: number;
  readonly frequencyPenalty?: number;
  readonly presencePenalty?: number;
  readonly logitBiasTokens?: Int32Array;
  readonly logitBiasValues?: Float32Array;
  readonly grammar?: string;
  readonly grammarRoot?: string;
  readonly rawTopK?: number;
  readonly rawFull?: boolean;
  readonly processedTopK?: number;
  readonly processedFull?: boolean;
  /** Record which sampler stage removed each raw top-k candidate (needs rawTopK 1..255): `raw.cutBy`. */
  readonly recordCutBy?: boolean;
  /** 0 = until end of generation or a full sequence. */
  readonly maxTokens: number;
  readonly ignoreEos: boolean;
  readonly promptLogprobs: boolean;
  readonly reusePrefix: boolean;
  /** Decode the prompt into a sequence's cells, then finish with no event (a prefill-ahead). */
  readonly prefillOnly?: boolean;
  /** A job of this context that must finish before this one takes a sequence (its prefill-ahead). */
  readonly after?: NativeDecodeJob;
  /** Each event's logprob; false leaves it NaN (default true). See docs/native.md. */
  readonly tokenLogprobs?: boolean;
  readonly deliveryDelayMs?: number;
  readonly queueCapacity: number;
}

/** The decode engine's own counts (not the caller's bookkeeping). */
export interface NativeContextCounters {
  /** Generations holding a sequence now. */
  readonly liveSequences: number;
  /** Generations queued for a free sequence. */
  readonly waiting: number;
  /** Most generations that held a sequence at once since the context was created or resetPeakCounter(). */
  readonly peakLiveSequences: number;
  /** Prompt tokens decoded (a reused prefix is not decoded again). */
  readonly promptTokensDecoded: number;
  /** Generated tokens decoded (each sampled token is decoded once, when the next one is needed). */
  readonly generatedTokensDecoded: number;
  /** Successful llama_decode calls. */
  readonly decodeCalls: number;
  /**
   * Events whose waiting reader was not woken at once but with a later step's event (deliveryDelayMs):
   * 0 while every generation has a delay of 0 or steps too long to hold.
   */
  readonly heldWakeUps: number;
  /** Vocabulary-sized rows of full captures the context's pool ever allocated (reused rows are not new). */
  readonly capturedRowsAllocated: number;
  /** Rows JavaScript let go (their Float32Array was collected) that the pool keeps for reuse, up to 64 MiB. */
  readonly capturedRowsKept: number;
  /**
   * Pooled rows JavaScript holds now (handed over, their arrays not yet collected), at most 64 MiB: past
   * that a pull copies rows into ordinary Float32Arrays, so a reader that never yields to the event loop
   * (where Node returns collected rows) cannot make the pool grow.
   */
  readonly capturedRowsHandedOut: number;
}

export interface NativeContext {
  getCounters(): NativeContextCounters;
  /** Starts peakLiveSequences again from the generations live now. */
  resetPeakCounter(): void;
  /** Queues a decode job; the decode thread starts it as soon as a sequence is free. */
  generate(options: NativeGenerateOptions): NativeDecodeJob;
  /** The tokens whose KV cells a sequence holds (what prefix reuse compares against). */
  getSequenceTokens(sequence: number): Int32Array;
  getInfo(): NativeContextInfo;
  /** Stops the decode thread (ends running generations with "abort") and frees the llama context. */
  dispose(): void;
}

/** Captured logits for `count` events, column-wise. */
export interface NativeLogitsColumns {
  /** Top-k mode: k, and count*k ids/logits, best first (-1 / -Infinity pad when fewer survive). */
  readonly topK?: number;
  readonly ids?: Int32Array;
  readonly logits?: Float32Array;
  /** The chosen token's value and log-sum-exp per event (top-k mode). */
  readonly chosenLogits?: Float32Array;
  readonly logSumExp?: Float32Array;
  /**
   * Full mode: one vocabulary-sized Float32Array per event. Each is that event's own row, handed over
   * without a copy from the context's pool of rows, to which it returns when the array is collected.
   */
  readonly fullRows?: readonly Float32Array[];
  /**
   * Raw top-k with recordCutBy: count*k stage codes aligned with `ids`, the processing stage that removed
   * each candidate; 0 when it survived (index into nativeSamplerStages).
   */
  readonly cutBy?: Uint8Array;
}

/** The addon's stage codes for `cutBy` (native/src/cut-by-recorder.h), code = index; 0 = not removed. */
export const nativeSamplerStages = [
  null,
  "logit-bias",
  "penalties",
  "grammar",
  "top-k",
  "typical-p",
  "top-p",
  "min-p",
] as const;

export interface NativeEventBatch {
  readonly count: number;
  readonly tokens: Int32Array;
  /** Processed log-probability of each chosen token. */
  readonly logprobs: Float32Array;
  /** Concatenated UTF-8 bytes of the pieces; event i is pieceBytes[pieceEnds[i-1] .. pieceEnds[i]). */
  readonly pieceBytes: Uint8Array;
  readonly pieceEnds: Uint32Array;
  readonly raw?: NativeLogitsColumns;
  readonly processed?: NativeLogitsColumns;
  /** True once the generation finished and every event was pulled. */
  readonly done: boolean;
}

/** What `NativeDecodeJob.getStats()` reports: the job's sequence, how it finished, and its timings. */
export interface NativeDecodeJobStats {
  readonly promptTokens: number;
  readonly finished: boolean;
  readonly finishReason: "stop" | "length" | "abort" | "error" | null;
  readonly errorCode: NativeDecodeErrorCode | null;
  readonly errorMessage: string | null;
  readonly sequence: number;
  /** The following are present once finished. */
  readonly generatedTokens?: number;
  readonly reusedPromptTokens?: number;
  readonly prefillChunks?: readonly number[];
  readonly totalMs?: number;
  readonly timeToFirstTokenMs?: number;
  readonly prefillMs?: number;
  readonly decodeMs?: number;
}

/**
 * The addon's handle to one request in the decode engine: queued on a context, decoded on the engine's
 * thread, its events pulled in batches. Mirrors the C++ `AddonDecodeJob` wrapper
 * (native/src/addon-decode-job.h) around a `DecodeJob` (native/src/decode-job.h). Not the user-facing result: that is the thunk and its `GenerationMetadata`.
 */
export interface NativeDecodeJob {
  /**
   * Resolves with up to maxEvents events as soon as at least one is queued or the job ended.
   * Full vectors are memcpy'd into a Float32Array the addon allocates for the batch at the exact size.
   * One pull at a time.
   */
  pull(maxEvents: number): Promise<NativeEventBatch>;
  /** Stops decoding within one step (or inside a long prefill); the sequence's KV cells are removed. */
  abort(): void;
  getStats(): NativeDecodeJobStats;
  /** Raw log-probability of each prompt token given the previous ones (NaN at 0); null until finished. */
  getPromptLogprobs(): Float32Array | null;
}

/** Hook points of native/src/test-hooks.h (race windows and injected faults). */
export type NativeTestHookName =
  | "takeBatchGap"
  | "createContextBeforeInit"
  | "throwInSample"
  | "throwInSampleKind"
  | "throwInDecode"
  | "afterStep"
  | "throwInTakeBatch";

/** Present only on the test build (`node scripts/build-native.mjs --test-hooks`). */
export interface NativeTestHooks {
  /** Microseconds for the pause points; a countdown (1 = next time) for the throw points. 0 turns a hook off. */
  set(name: NativeTestHookName, value: number): void;
  /** What the hook holds now: a countdown reads 0 once it fired. */
  get(name: NativeTestHookName): number;
  readonly names: readonly NativeTestHookName[];
}

export interface NativeAddon {
  readonly addonVersion: number;
  readonly testHooks?: NativeTestHooks;
  /** Registers the ggml backends found in a folder (once per process); returns the folder used. */
  loadBackends(folder: string): string;
  /**
   * Loads one more backend library (CUDA, Vulkan); its registered name, or null if it cannot load.
   * gpu/gpu-backend-resolution.ts checks its runtime libraries first, so that a missing one is named.
   */
  loadBackendLibrary(path: string): string | null;
  listDevices(): NativeDevice[];
  /** 0 silent (default), 1 errors, 2 warnings, 3 info, 4 debug: llama.cpp's log to stderr. */
  setLogLevel(level: number): void;
  systemInfo(): string;
  /** Detaches each typed array's buffer (a captured row goes back to its pool); how many it detached. */
  releaseRows(arrays: readonly unknown[]): number;
  loadModel(
    path: string,
    options: NativeLoadModelOptions,
    onProgress?: (progress: number) => void,
  ): NativeModelLoad;
}
