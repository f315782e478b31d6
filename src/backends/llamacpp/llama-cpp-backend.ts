import { basename } from "node:path";
import type { z } from "zod";
import type { BackendCapabilities, GenerateAction, GenerateResult } from "../../core/backend.js";
import {
  BaseBackend,
  type BaseBackendOptions,
  type ResolvedGenerateOptions,
} from "../../core/base-backend.js";
import type { Context } from "../../core/context.js";
import { GenerateLog } from "../../core/generate-log.js";
import { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { ChatFormatter } from "../../formatting/chat-formatter.js";
import { TemplateFormatter } from "../../formatting/template-formatter.js";
import { templateUseOf } from "../../formatting/template-use-of.js";
import type { FlashAttention } from "./addon-types.js";
import { isBuiltinChatTemplateSource } from "./builtin-chat-templates.js";
import type { ChatTemplateSource } from "./chat-prompt-builder.js";
import { type ChatTemplateLimits, ChatTemplateSandbox } from "./chat-template-sandbox.js";
import { BackendNotLoadedError } from "./errors/backend-not-loaded-error.js";
import { LlamaDisposedError } from "./errors/llama-disposed-error.js";
import { NoGenerationViewError } from "./errors/no-generation-view-error.js";
import { type LlamaContext, startResolved } from "./llama-context.js";
import { type LoadedLlama, loadLlama, tokenText } from "./llama-cpp-loader.js";
import { llamaCppModelOptionsSchema } from "./llama-cpp-model-options.js";
import type { LlamaModel } from "./llama-model.js";
import { startLlamaStreamRun } from "./llama-stream-run.js";
import {
  checkBoolean,
  checkChoice,
  checkInteger,
  checkString,
  rejectUnknownOptions,
} from "./native-option-checks.js";
import { PrefillAhead } from "./prefill-ahead.js";
import { type PreparedRequest, prepareRequest } from "./request-preparation.js";
import type { TokenStream } from "./token-stream.js";

export interface LlamaCppBackendOptions extends BaseBackendOptions {
  /** A GGUF file path or a preset name (`tiny`, `llama-3.2-1b:q4_0`); default: the tiny test model. */
  model?: string;
  /** Identifier for logs and template selection; default: the preset name or the file name without .gguf. */
  modelId?: string;
  /** CPU threads; default: physical cores (ggml spin-waits: never more than the free cores). */
  threads?: number;
  /** Tokens per sequence (prompt + output); default: the model's training context, at most 4096. */
  contextSize?: number;
  /** Sequences decoded together in one batch (generateFromRaw, concurrent calls); default 4. */
  sequences?: number;
  batchSize?: number;
  /**
   * Flash attention of the context: "auto", "on" or "off"; default "off" on the CPU (faster decoding
   * at depth and second chat turns there), "auto" with GPU layers. See LlamaContextOptions.
   */
  flashAttention?: FlashAttention;
  /**
   * Layers offloaded to a GPU ("max" = all, "auto" = as many as fit with this context's KV cache); needs
   * node-llama-cpp's CUDA or Vulkan package and a device. `docs/gpu.md` explains the choice.
   */
  gpuLayers?: number | "max" | "auto";
  /**
   * Transparent huge pages for the memory llama.cpp allocates (repacked weights, KV cache, compute
   * buffers) on Linux; default true. See LoadLlamaModelOptions.hugePages; `backend.model.hugePages` and
   * `backend.context.hugePages` say what was done.
   */
  hugePages?: boolean;
  /** A built-in template name ("chatml", "llama2", "llama3") or Jinja source replacing the GGUF's. */
  chatTemplate?: string;
  chatTemplateLimits?: Partial<ChatTemplateLimits>;
  /** Turns the context into chat messages; default: a TemplateFormatter for modelId. */
  formatter?: ChatFormatter;
  /** Stream parts (about one per token) queued in a thunk ahead of its reader before decoding pauses; default 16. */
  queueCapacity?: number;
  /**
   * Start prefilling a long prompt's first 30% (prompts of 1,024 characters or more) while the whole
   * prompt is tokenized, so the decode thread does not wait for the tokenizer; default true. The
   * generation still decodes its own exact tokens: this moves when the work starts, never what is decoded
   * (LlamaContext.prefillPrefix; docs/native.md, "Prefill ahead").
   */
  prefillAhead?: boolean;
}

const optionNames: ReadonlySet<string> = new Set([
  "defaultModelOptions",
  "hooks",
  "model",
  "modelId",
  "threads",
  "contextSize",
  "sequences",
  "batchSize",
  "flashAttention",
  "gpuLayers",
  "hugePages",
  "chatTemplate",
  "chatTemplateLimits",
  "formatter",
  "queueCapacity",
  "prefillAhead",
]);

/**
 * Generation on a local GGUF model through tessera's llama.cpp addon. The context is formatted into chat
 * messages, rendered with the model's own chat template in a sandbox (a built-in one in this thread), tokenized and checked against the
 * context size; the returned thunk is uncomputed and pulls tokens from the native queue as it is read.
 */
export class LlamaCppBackend extends BaseBackend implements AsyncDisposable {
  readonly modelId: string;
  readonly capabilities: BackendCapabilities;
  readonly formatter: ChatFormatter;
  readonly #options: LlamaCppBackendOptions & { sequences: number };
  readonly #sandbox: ChatTemplateSandbox;
  readonly #pieces = new Map<number, string>();
  readonly #prefillAhead: PrefillAhead | null;
  #loading: Promise<LoadedLlama> | null = null;
  #loaded: LoadedLlama | null = null;
  #disposed = false;

  constructor(options: LlamaCppBackendOptions = {}) {
    rejectUnknownOptions("LlamaCppBackend options", options, optionNames);
    super(options);
    if (options.model !== undefined) checkString("model", options.model);
    const sequences =
      options.sequences === undefined ? 4 : checkInteger("sequences", options.sequences, 1, 256);
    if (options.queueCapacity !== undefined) checkInteger("queueCapacity", options.queueCapacity, 1, 1 << 16);
    if (options.hugePages !== undefined) checkBoolean("hugePages", options.hugePages);
    if (options.flashAttention !== undefined) {
      checkChoice("flashAttention", options.flashAttention, ["auto", "on", "off"]);
    }
    this.#options = { ...options, sequences };
    this.modelId = options.modelId ?? defaultModelId(options.model);
    this.formatter = options.formatter ?? new TemplateFormatter(this.modelId);
    this.#sandbox = new ChatTemplateSandbox(options.chatTemplateLimits);
    const prefillAhead =
      options.prefillAhead === undefined ? true : checkBoolean("prefillAhead", options.prefillAhead);
    this.#prefillAhead = prefillAhead ? new PrefillAhead() : null;
    this.capabilities = {
      images: false,
      audio: false,
      logits: true,
      rawLogits: true,
      grammar: true,
      tools: true,
      toolChoice: true,
      rawPrompt: true,
      parallelSequences: sequences,
      // prepareRequest checks options, template and length before #start, which starts the native run.
      refusesUpFront: true,
    };
  }

  /** A backend whose model and context are loaded. */
  static async create(options: LlamaCppBackendOptions = {}): Promise<LlamaCppBackend> {
    const backend = new LlamaCppBackend(options);
    await backend.load();
    return backend;
  }

  protected override get modelOptionsSchema(): z.ZodObject {
    return llamaCppModelOptionsSchema;
  }

  /** Loads the model and creates the context on first use; generating calls it too. */
  async load(): Promise<void> {
    await this.#ensureLoaded();
  }

  /** The loaded model (after load()). */
  get model(): LlamaModel {
    if (this.#loaded === null) throw new BackendNotLoadedError("model");
    return this.#loaded.model;
  }

  /** The llama.cpp context generations run in (after load()). */
  get context(): LlamaContext {
    if (this.#loaded === null) throw new BackendNotLoadedError("context");
    return this.#loaded.context;
  }

  /** The chat template in use: its name ("gguf:<file>", "builtin:chatml", "custom") and source. */
  get chatTemplate(): ChatTemplateSource | null {
    return this.#loaded?.template ?? null;
  }

  /** Frees the context, the model and the template sandbox; running generations end with "abort". */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#sandbox.close();
    const loaded = this.#loaded ?? (await this.#loading?.catch(() => null)) ?? null;
    this.#loaded = null;
    loaded?.context.dispose();
    loaded?.model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  protected async doGenerateFromContext<T>(
    action: GenerateAction<T>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<GenerateResult<T>> {
    const requestStart = performance.now();
    const history = context.viewForGeneration();
    if (history === null) throw new NoGenerationViewError(context.constructor.name);
    const loaded = await this.#ensureLoaded();
    const prepared = await prepareRequest({
      loaded,
      sandbox: this.#sandbox,
      formatter: this.formatter,
      action,
      history,
      toolSpans: [action, ...(context.actionsForAvailableTools() ?? [])],
      options,
      prefillAhead: this.#prefillAhead,
    });
    const [thunk] = this.#start(loaded, [prepared], options, requestStart);
    return { thunk: thunk!, context: context.add(action).add(thunk!) };
  }

  /** Each action alone (no history), all decoded together as parallel sequences of one context. */
  protected async doGenerateFromRaw<T>(
    actions: ReadonlyArray<GenerateAction<T>>,
    _context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<Array<ModelOutputThunk<T>>> {
    const requestStart = performance.now();
    const loaded = await this.#ensureLoaded();
    // Everything is prepared and checked first, so one bad action starts no generation at all.
    const prepared: PreparedRequest<T>[] = [];
    try {
      for (const action of actions) {
        prepared.push(
          await prepareRequest({
            loaded,
            sandbox: this.#sandbox,
            formatter: this.formatter,
            action,
            history: [],
            toolSpans: [action],
            options,
            prefillAhead: this.#prefillAhead,
          }),
        );
      }
    } catch (error) {
      // A later action was refused: no generation starts, and the earlier ones' prefills stop.
      for (const item of prepared) item.prefill?.cancel();
      throw error;
    }
    return this.#start(loaded, prepared, options, requestStart);
  }

  #ensureLoaded(): Promise<LoadedLlama> {
    if (this.#disposed) return Promise.reject(new LlamaDisposedError("model"));
    if (this.#loaded !== null) return Promise.resolve(this.#loaded);
    this.#loading ??= (async () => {
      const loaded = await loadLlama(this.#options);
      // The worker's start-up would otherwise land in the first generation's time to first byte. A
      // built-in template renders in this thread, so its backend never starts the worker.
      if (!isBuiltinChatTemplateSource(loaded.template.source)) await this.#sandbox.warmUp();
      return loaded;
    })().then(
      (loaded) => {
        this.#loaded = loaded;
        return loaded;
      },
      (error: unknown) => {
        // A failed load (missing file, bad model) can be retried, say after the file was fixed.
        this.#loading = null;
        throw error;
      },
    );
    return this.#loading;
  }

  /** The text of one token (cached: logits traces name the same top tokens over and over). */
  #pieceText(model: LlamaModel, token: number): string {
    let text = this.#pieces.get(token);
    if (text === undefined) {
      text = tokenText(model, token);
      if (this.#pieces.size < 1 << 17) this.#pieces.set(token, text);
    }
    return text;
  }

  #start<T>(
    loaded: LoadedLlama,
    prepared: ReadonlyArray<PreparedRequest<T>>,
    options: ResolvedGenerateOptions<T>,
    requestStart: number,
  ): Array<ModelOutputThunk<T>> {
    const streams: TokenStream[] = [];
    /** performance.now() as each native run started: the native clock's durations count from there. */
    const nativeStarts: number[] = [];
    try {
      for (const item of prepared) {
        nativeStarts.push(performance.now());
        streams.push(startResolved(loaded.context, item.native));
      }
    } catch (error) {
      // A later generation of the batch was refused (say its grammar): stop the ones already started.
      for (const stream of streams) stream.cancel();
      for (const item of prepared) item.prefill?.cancel();
      throw error;
    }
    return prepared.map((item, index) => {
      const thunk = new ModelOutputThunk<T>(null);
      thunk.action = item.action;
      thunk.modelOptions = item.modelOptions;
      thunk.generation.model = this.modelId;
      thunk.generation.provider = "llama.cpp";
      // The loaded model is the one that answers (gen_ai.response.model on the span, as documented).
      thunk.generation.responseModel = this.modelId;
      thunk.generation.streaming = true;
      const template = templateUseOf(this.formatter, item.action);
      thunk.generation.promptTemplate = template?.template ?? null;
      thunk.generation.promptTemplateVariables = template?.variables ?? null;
      thunk.generateLog = new GenerateLog({
        prompt: item.prompt,
        backend: `llama.cpp::${this.modelId}`,
        modelOptions: item.modelOptions,
        action: item.action,
        result: thunk as ModelOutputThunk<unknown>,
        extra: {
          // None for a raw prompt: its text went to the tokenizer as it is.
          chatTemplate: item.modelOptions.rawPrompt === true ? null : loaded.template.name,
          promptTokens: item.tokens.length,
          ...(item.grammar !== undefined && { grammar: item.grammar }),
        },
      });
      startLlamaStreamRun<T>({
        thunk,
        stream: streams[index]!,
        requestStart,
        tokenizeMs: item.tokenizeMs,
        templateMs: item.templateMs,
        templateStartedAt: item.templateStartedAt,
        tokenizeEndedAt: item.tokenizeEndedAt,
        nativeStart: nativeStarts[index]!,
        promptTokens: item.tokens.length,
        vocabSize: loaded.model.vocabSize,
        stopSequences: item.modelOptions.stopSequences ?? [],
        logits: item.modelOptions.logits,
        rawLogits: item.modelOptions.rawLogits,
        tools: item.tools,
        format: item.format,
        signal: options.signal,
        queueCapacity: this.#options.queueCapacity ?? 16,
        pieceText: (token) => this.#pieceText(loaded.model, token),
      });
      return thunk;
    });
  }
}

function defaultModelId(model: string | undefined): string {
  if (model === undefined) return "tiny";
  const name = basename(model);
  return name.toLowerCase().endsWith(".gguf") ? name.slice(0, -".gguf".length) : name;
}
