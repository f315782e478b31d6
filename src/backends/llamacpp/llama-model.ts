import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { GgufFileInfo } from "../../gguf/gguf-file-info.js";
import { readGgufFile } from "../../gguf/gguf-reader.js";
import { findLlamaCppHazards } from "../../gguf/llama-cpp-hazards.js";
import type { HugePageAdvice, NativeContext, NativeModel, NativeModelMetadata } from "./addon-types.js";
import { resolveContextOptions } from "./context-option-checks.js";
import { IncompatibleOptionsError } from "./errors/incompatible-options-error.js";
import { InvalidOptionError } from "./errors/invalid-option-error.js";
import { LlamaDisposedError } from "./errors/llama-disposed-error.js";
import { ModelLoadAbortedError } from "./errors/model-load-aborted-error.js";
import { ModelLoadError } from "./errors/model-load-error.js";
import { UnsupportedModelFileError } from "./errors/unsupported-model-file-error.js";
import type { GpuBackendAttempt } from "./gpu/gpu-backend-attempt.js";
import { type LlamaModelGpu, resolveOffload } from "./gpu/gpu-offload.js";
import { LlamaContext, type LlamaContextOptions } from "./llama-context.js";
import { loadNativeAddon } from "./native-addon.js";
import {
  checkBoolean,
  checkInteger,
  checkSignal,
  checkString,
  rejectUnknownOptions,
} from "./native-option-checks.js";
import { PieceTokenizer } from "./piece-tokenizer.js";
import { SpecialTokenSplit } from "./special-token-split.js";

export interface LoadLlamaModelOptions {
  /**
   * Layers to offload to a GPU: a count (the output layer counts as one more than the model's layers),
   * "max" (all) or "auto" (as many as fit in free device memory with the KV cache of `contextCells`
   * cells; `model.gpu.plan` shows the figures). The GPU backend is the first of CUDA 13, CUDA 12 and Vulkan
   * (node-llama-cpp's packages) that loads and finds a device; without one the CPU runs every layer and
   * `model.gpu.attempts` says why each did not load. Default 0.
   */
  readonly gpuLayers?: number | "max" | "auto";
  /** Throw GpuUnavailableError instead of running on the CPU when gpuLayers asks for a GPU and none loads. */
  readonly requireGpu?: boolean;
  /** KV cells the contexts will hold in all (contextSize × sequences), for gpuLayers "auto". Default 4096. */
  readonly contextCells?: number;
  /** Memory-map the file (default true). */
  readonly useMmap?: boolean;
  /**
   * Ask Linux for transparent huge pages (2 MiB) for the memory llama.cpp allocates while loading this
   * model and creating its contexts: a quantized model's repacked weights, KV cache, output and compute
   * buffers. Default true. Where huge pages are only given on request (`transparent_hugepage=madvise`)
   * and TLB misses are dear (a VM), the 1B Q4_0 model decoded 1.27× faster with them (1 thread) and
   * loaded faster too: the weights are advised before llama.cpp writes them (docs/native.md, "Huge pages").
   * `model.hugePages` says what was done; false leaves the memory as llama.cpp allocates it. No effect
   * outside Linux or where huge pages are disabled (`supported: false`).
   */
  readonly hugePages?: boolean;
  readonly signal?: AbortSignal;
  /** Loading progress in [0, 1]. */
  readonly onProgress?: (progress: number) => void;
}

export type LlamaModelMetadata = NativeModelMetadata;

export interface TokenizeOptions {
  /** Add BOS/EOS as the model's vocabulary asks. Default true. */
  readonly addSpecial?: boolean;
  /** Turn special-token text (e.g. "<|eot_id|>") into those tokens. Default false. */
  readonly parseSpecial?: boolean;
}

const loadOptionNames: ReadonlySet<string> = new Set([
  "gpuLayers",
  "requireGpu",
  "contextCells",
  "useMmap",
  "hugePages",
  "signal",
  "onProgress",
]);

/** Loads a GGUF model on a worker thread, with progress and abort. */
export async function loadLlamaModel(path: string, options: LoadLlamaModelOptions = {}): Promise<LlamaModel> {
  checkString("path", path);
  rejectUnknownOptions("loadLlamaModel options", options, loadOptionNames);
  const gpuLayers =
    options.gpuLayers === undefined
      ? 0
      : options.gpuLayers === "max" || options.gpuLayers === "auto"
        ? options.gpuLayers
        : checkInteger("gpuLayers", options.gpuLayers, 0, 1 << 16);
  const requireGpu =
    options.requireGpu === undefined ? false : checkBoolean("requireGpu", options.requireGpu);
  const contextCells =
    options.contextCells === undefined
      ? 4096
      : checkInteger("contextCells", options.contextCells, 16, 2 ** 31 - 256);
  const useMmap = options.useMmap === undefined ? true : checkBoolean("useMmap", options.useMmap);
  const hugePages = options.hugePages === undefined ? true : checkBoolean("hugePages", options.hugePages);
  const signal = checkSignal("signal", options.signal);
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new InvalidOptionError("onProgress", "a function", options.onProgress);
  }
  const fullPath = resolve(path);
  if (!existsSync(fullPath)) throw new ModelLoadError(fullPath, "no such file");
  if (!statSync(fullPath).isFile()) throw new ModelLoadError(fullPath, "not a regular file");
  if (signal?.aborted) throw new ModelLoadAbortedError(fullPath, signal.reason);
  const file = await refuseCrashingFiles(fullPath);
  if (signal?.aborted) throw new ModelLoadAbortedError(fullPath, signal.reason);

  const addon = loadNativeAddon();
  const { nativeLayers, gpu } = resolveOffload(addon, {
    requested: gpuLayers,
    requireGpu,
    file,
    contextCells,
    sequenceContextSize: Math.min(contextCells, 4096),
    microBatch: 512,
  });
  const load = addon.loadModel(fullPath, { gpuLayers: nativeLayers, useMmap, hugePages }, options.onProgress);
  const onAbort = () => load.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const native = await load.promise;
    return new LlamaModel(native, fullPath, gpu);
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_ABORTED")
      throw new ModelLoadAbortedError(fullPath, signal?.reason);
    const message = error instanceof Error ? error.message : String(error);
    throw new ModelLoadError(fullPath, message.replace(`llama.cpp could not load ${fullPath}: `, ""), {
      cause: error,
    });
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * llama.cpp aborts the whole process (GGML_ASSERT, an uncaught C++ exception) on some malformed files
 * instead of returning an error, so the header is read with our own bounded reader first (only the
 * header: a few milliseconds even for a multi-gigabyte model) and refused when it is broken or holds a
 * known hazard.
 */
async function refuseCrashingFiles(fullPath: string): Promise<GgufFileInfo> {
  let problems: readonly string[];
  let file: GgufFileInfo;
  try {
    file = await readGgufFile(fullPath);
    problems = findLlamaCppHazards(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UnsupportedModelFileError(fullPath, [`its GGUF header does not parse (${reason})`], {
      cause: error,
    });
  }
  if (problems.length > 0) throw new UnsupportedModelFileError(fullPath, problems);
  return file;
}

/** A loaded model: tokenizer, metadata, contexts. Dispose it (or `await using`) to free its memory. */
export class LlamaModel implements AsyncDisposable {
  readonly path: string;
  readonly metadata: LlamaModelMetadata;
  /** Where the layers run: the GPU backend (or null), how many layers it holds, the "auto" plan and why. */
  readonly gpu: LlamaModelGpu;
  /** The same as `gpu.attempts`: GPU backends tried and why they were not used (empty when none was asked for). */
  readonly gpuAttempts: readonly GpuBackendAttempt[];
  readonly #native: NativeModel;

  /** @internal Created by loadLlamaModel. */
  constructor(native: NativeModel, path: string, gpu: LlamaModelGpu) {
    this.#native = native;
    this.path = path;
    this.metadata = native.getMetadata();
    this.gpu = gpu;
    this.gpuAttempts = gpu.attempts;
  }

  get vocabSize(): number {
    return this.metadata.vocabSize;
  }

  #longestTokenBytes: number | undefined;
  /** Built on the first chat prompt; null: whole texts are tokenized (promptPieceCounters). */
  #pieces: PieceTokenizer | null | undefined;

  /**
   * The most UTF-8 bytes one token stands for (special tokens' text included), found by the native load
   * worker off the JavaScript thread (it cost the 1B model's first long prompt 77 ms when JavaScript
   * scanned the vocabulary then). A prompt of B bytes is then at least ceil(B / longestTokenBytes) tokens,
   * a bound that needs no tokenizing.
   */
  get longestTokenBytes(): number {
    this.#assertLoaded();
    if (this.#longestTokenBytes === undefined) {
      // Found by the load worker; a vocabulary llama.cpp failed on there is scanned here, where a token that
      // cannot be turned into text raises a typed error.
      let longest = this.#native.longestPieceBytes();
      if (longest === 0) {
        for (let token = 0; token < this.vocabSize; token++) {
          longest = Math.max(longest, this.#native.tokenToPiece(token, true).length);
        }
      }
      this.#longestTokenBytes = Math.max(longest, 1);
    }
    return this.#longestTokenBytes;
  }
  /** What loading did about transparent huge pages (the `hugePages` load option). */
  get hugePages(): HugePageAdvice {
    this.#assertLoaded();
    return this.#native.hugePages();
  }

  get disposed(): boolean {
    return this.#native.isDisposed();
  }

  tokenize(text: string, options: TokenizeOptions = {}): Int32Array {
    this.#assertLoaded();
    checkString("text", text);
    const addSpecial =
      options.addSpecial === undefined ? true : checkBoolean("addSpecial", options.addSpecial);
    const parseSpecial =
      options.parseSpecial === undefined ? false : checkBoolean("parseSpecial", options.parseSpecial);
    // A chat prompt (special tokens parsed, none added) goes piece by piece, reusing the tokens of pieces
    // seen before: the same tokens, and a conversation's earlier messages are not tokenized again.
    if (parseSpecial && !addSpecial) {
      const pieces = this.#pieceTokenizer();
      if (pieces !== null) return pieces.tokenize(text);
    }
    return this.#native.tokenize(text, addSpecial, parseSpecial);
  }

  /**
   * How often a chat prompt's pieces (the text between its special tokens) were found among the recent
   * ones rather than tokenized; null where the vocabulary's special tokens cannot be split on exactly as
   * llama.cpp does, and whole texts are tokenized (special-token-split.ts).
   */
  get promptPieceCounters(): { hits: number; misses: number; keptPieces: number } | null {
    this.#assertLoaded();
    return this.#pieceTokenizer()?.counters ?? null;
  }

  #pieceTokenizer(): PieceTokenizer | null {
    if (this.#pieces === undefined) {
      const split = SpecialTokenSplit.of(this.#native.specialTokens());
      this.#pieces =
        split === null
          ? null
          : new PieceTokenizer(split, (piece) => this.#native.tokenize(piece, false, false));
    }
    return this.#pieces;
  }

  detokenize(
    tokens: ArrayLike<number>,
    options: { removeSpecial?: boolean; unparseSpecial?: boolean } = {},
  ): string {
    this.#assertLoaded();
    const ids = Int32Array.from(tokens);
    return this.#native.detokenize(ids, options.removeSpecial === true, options.unparseSpecial === true);
  }

  /** A token's bytes (a piece may hold part of a UTF-8 character). */
  tokenToPiece(token: number, options: { special?: boolean } = {}): Uint8Array {
    this.#assertLoaded();
    checkInteger("token", token, 0, this.vocabSize - 1);
    return this.#native.tokenToPiece(token, options.special === true);
  }

  /**
   * Creates a context. Options are checked first (InvalidOptionError, or IncompatibleOptionsError
   * for combinations llama.cpp would abort on, such as batchSize below sequences).
   */
  async createContext(options: LlamaContextOptions = {}): Promise<LlamaContext> {
    this.#assertLoaded();
    const resolved = resolveContextOptions(options, this.metadata, this.gpu.layers);
    let native: NativeContext;
    try {
      native = await this.#native.createContext(resolved);
    } catch (error) {
      throw translateContextError(error, resolved.contextSize);
    }
    return new LlamaContext(native, this.vocabSize, resolved.flashAttention);
  }

  /** Disposes every context of this model (their generations end with "abort"), then frees the weights. */
  dispose(): void {
    // The addon disposes the model's contexts first; using one afterwards throws LlamaDisposedError.
    this.#native.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  #assertLoaded(): void {
    if (this.#native.isDisposed()) throw new LlamaDisposedError("model");
  }
}

/**
 * The addon's own checks (ERR_INVALID_ARGUMENT) and llama.cpp refusing the context (ERR_CONTEXT_CREATE,
 * usually memory) as typed errors. The TypeScript checks run first, so the first one is a second line
 * of defence.
 */
function translateContextError(error: unknown, contextSize: number): unknown {
  const code = (error as { code?: string } | null)?.code;
  // model.dispose() while the context was being created: the addon freed what it made.
  if (code === "ERR_DISPOSED") return new LlamaDisposedError("model");
  if (code !== "ERR_INVALID_ARGUMENT" && code !== "ERR_CONTEXT_CREATE") return error;
  const message = error instanceof Error ? error.message : String(error);
  const [problem, remedy] = message.split("; ");
  const fix = remedy ?? "check the createContext options against their documented ranges";
  return new IncompatibleOptionsError("createContext options", contextSize, problem ?? message, fix);
}
