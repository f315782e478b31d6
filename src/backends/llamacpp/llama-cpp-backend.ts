import { basename } from "node:path";
import type { z } from "zod";
import type { AbstractTool, JsonTool } from "../../core/abstract-tool.js";
import type { BackendCapabilities, GenerateAction, GenerateResult } from "../../core/backend.js";
import {
  BaseBackend,
  type BaseBackendOptions,
  type ResolvedGenerateOptions,
} from "../../core/base-backend.js";
import type { Context } from "../../core/context.js";
import { InvalidModelOptionError } from "../../core/errors/invalid-model-option-error.js";
import { GenerateLog } from "../../core/generate-log.js";
import { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Span } from "../../core/span.js";
import type { ChatFormatter } from "../../formatting/chat-formatter.js";
import { TemplateFormatter } from "../../formatting/template-formatter.js";
import { resolveDefaultModel, resolveModel } from "../../gguf/default-model.js";
import {
  builtinChatTemplates,
  fallbackChatTemplateName,
  isBuiltinChatTemplateName,
} from "./builtin-chat-templates.js";
import { type ChatTemplateSource, renderChatPrompt } from "./chat-prompt-builder.js";
import { type ChatTemplateLimits, ChatTemplateSandbox } from "./chat-template-sandbox.js";
import { collectTools } from "./collect-tools.js";
import { BackendNotLoadedError } from "./errors/backend-not-loaded-error.js";
import { ContextOverflowError } from "./errors/context-overflow-error.js";
import { LlamaDisposedError } from "./errors/llama-disposed-error.js";
import { NoGenerationViewError } from "./errors/no-generation-view-error.js";
import { grammarForJsonSchema, jsonSchemaOfZod } from "./json-schema-grammar.js";
import type { LlamaContext } from "./llama-context.js";
import {
  type LlamaCppModelOptions,
  llamaCppModelOptionsSchema,
  toTokenOptions,
} from "./llama-cpp-model-options.js";
import { startGenerationRun } from "./llama-generation-run.js";
import { type LlamaModel, loadLlamaModel } from "./llama-model.js";
import { resolveGenerateOptions } from "./native-generate-options.js";
import { checkInteger, checkString, rejectUnknownOptions } from "./native-option-checks.js";
import type { TokenStream } from "./token-stream.js";
import { toolCallGrammar } from "./tool-call-format.js";

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
  /** Layers offloaded to a GPU ("max" = all); needs node-llama-cpp's CUDA/Vulkan package and a device. */
  gpuLayers?: number | "max";
  /** A built-in template name ("chatml", "llama2", "llama3") or Jinja source replacing the GGUF's. */
  chatTemplate?: string;
  chatTemplateLimits?: Partial<ChatTemplateLimits>;
  /** Turns the context into chat messages; default: a TemplateFormatter for modelId. */
  formatter?: ChatFormatter;
  /** Chunks queued in each thunk before decoding pauses (default 16); the native queue adds 32 tokens. */
  queueCapacity?: number;
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
  "gpuLayers",
  "chatTemplate",
  "chatTemplateLimits",
  "formatter",
  "queueCapacity",
]);

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  template: ChatTemplateSource;
  bosToken: string;
  eosToken: string;
}

interface Prepared<T> {
  tokens: Int32Array;
  prompt: string;
  tokenizeMs: number;
  tools: Record<string, AbstractTool>;
  grammar: string | undefined;
  modelOptions: LlamaCppModelOptions;
  format: z.ZodType<T> | undefined;
  action: GenerateAction<T>;
}

/**
 * Generation on a local GGUF model through tessera's llama.cpp addon. The context is formatted into chat
 * messages, rendered with the model's own chat template in a sandbox, tokenized and checked against the
 * context size; the returned thunk is uncomputed and pulls tokens from the native queue as it is read.
 */
export class LlamaCppBackend extends BaseBackend implements AsyncDisposable {
  readonly modelId: string;
  readonly capabilities: BackendCapabilities;
  readonly formatter: ChatFormatter;
  readonly #options: LlamaCppBackendOptions;
  readonly #sandbox: ChatTemplateSandbox;
  readonly #pieces = new Map<number, string>();
  #loading: Promise<Loaded> | null = null;
  #loaded: Loaded | null = null;
  #disposed = false;

  constructor(options: LlamaCppBackendOptions = {}) {
    rejectUnknownOptions("LlamaCppBackend options", options, optionNames);
    super(options);
    if (options.model !== undefined) checkString("model", options.model);
    const sequences =
      options.sequences === undefined ? 4 : checkInteger("sequences", options.sequences, 1, 256);
    if (options.queueCapacity !== undefined) checkInteger("queueCapacity", options.queueCapacity, 1, 1 << 16);
    this.#options = { ...options, sequences };
    this.modelId = options.modelId ?? defaultModelId(options.model);
    this.formatter = options.formatter ?? new TemplateFormatter(this.modelId);
    this.#sandbox = new ChatTemplateSandbox(options.chatTemplateLimits);
    this.capabilities = {
      images: false,
      audio: false,
      logits: true,
      rawLogits: true,
      grammar: true,
      tools: true,
      parallelSequences: sequences,
    };
  }

  /** Loads the backend (model, context) and resolves once it can generate. */
  static async create(options: LlamaCppBackendOptions = {}): Promise<LlamaCppBackend> {
    const backend = new LlamaCppBackend(options);
    await backend.load();
    return backend;
  }

  protected override get modelOptionsSchema(): z.ZodObject {
    return llamaCppModelOptionsSchema;
  }

  /** Loads the model and creates the context on first use; later calls return the same promise. */
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
    loaded?.context.dispose();
    loaded?.model.dispose();
    this.#loaded = null;
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
    const toolSpans = [action, ...(context.actionsForAvailableTools() ?? [])];
    const prepared = await this.#prepare(action, history, toolSpans, options);
    const [thunk] = this.#start([prepared], options, requestStart);
    return { thunk: thunk!, context: context.add(action).add(thunk!) };
  }

  /** Each action alone (no history), all decoded together as parallel sequences of one context. */
  protected async doGenerateFromRaw<T>(
    actions: ReadonlyArray<GenerateAction<T>>,
    _context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<Array<ModelOutputThunk<T>>> {
    const requestStart = performance.now();
    // Everything is prepared and checked first, so one bad action starts no generation at all.
    const prepared: Prepared<T>[] = [];
    for (const action of actions) prepared.push(await this.#prepare(action, [], [action], options));
    return this.#start(prepared, options, requestStart);
  }

  async #ensureLoaded(): Promise<Loaded> {
    if (this.#disposed) throw new LlamaDisposedError("model");
    if (this.#loaded !== null) return this.#loaded;
    this.#loading ??= this.#loadNow().then(
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

  async #loadNow(): Promise<Loaded> {
    const options = this.#options;
    const path =
      options.model === undefined ? await resolveDefaultModel() : await resolveModel(options.model);
    const model = await loadLlamaModel(path, {
      ...(options.gpuLayers !== undefined && { gpuLayers: options.gpuLayers }),
    });
    try {
      const context = await model.createContext({
        sequences: options.sequences!,
        ...(options.threads !== undefined && { threads: options.threads }),
        ...(options.contextSize !== undefined && { contextSize: options.contextSize }),
        ...(options.batchSize !== undefined && { batchSize: options.batchSize }),
      });
      const metadata = model.metadata;
      await this.#sandbox.warmUp();
      return {
        model,
        context,
        template: pickTemplate(options.chatTemplate, metadata.chatTemplate, basename(path)),
        bosToken: this.#specialText(model, metadata.bos),
        eosToken: this.#specialText(model, metadata.eos),
      };
    } catch (error) {
      model.dispose();
      throw error;
    }
  }

  #specialText(model: LlamaModel, token: number): string {
    if (token < 0) return "";
    return new TextDecoder().decode(model.tokenToPiece(token, { special: true }));
  }

  /** The text of one token (cached: logits traces name the same top tokens over and over). */
  #pieceText(token: number): string {
    let text = this.#pieces.get(token);
    if (text === undefined) {
      const loaded = this.#loaded;
      text =
        loaded === null ? "" : new TextDecoder().decode(loaded.model.tokenToPiece(token, { special: true }));
      if (this.#pieces.size < 1 << 17) this.#pieces.set(token, text);
    }
    return text;
  }

  async #prepare<T>(
    action: GenerateAction<T>,
    history: readonly Span[],
    toolSpans: readonly Span[],
    options: ResolvedGenerateOptions<T>,
  ): Promise<Prepared<T>> {
    const modelOptions = options.modelOptions as LlamaCppModelOptions;
    const format = options.format;
    const toolChoice = modelOptions.toolChoice ?? "auto";
    const tools =
      format !== undefined || toolChoice === "none"
        ? {}
        : collectTools([modelOptions.tools, options.tools], toolSpans);
    const jsonTools: JsonTool[] = Object.values(tools).map((tool) => tool.asJsonTool());
    if (modelOptions.grammar !== undefined && (format !== undefined || jsonTools.length > 0)) {
      throw new InvalidModelOptionError(
        "grammar",
        "(a grammar)",
        "a custom grammar cannot be combined with `format` or offered tools (they bring their own); drop one",
      );
    }
    if (toolChoice === "required" && format === undefined && jsonTools.length === 0) {
      throw new InvalidModelOptionError("toolChoice", toolChoice, 'offer at least one tool, or use "auto"');
    }
    const loaded = await this.#ensureLoaded();
    const grammar =
      modelOptions.grammar ??
      (format !== undefined
        ? await grammarForJsonSchema(jsonSchemaOfZod(format))
        : jsonTools.length > 0
          ? await toolCallGrammar(jsonTools, toolChoice === "required" ? "required" : "auto")
          : undefined);
    const messages = this.formatter.toChatMessages([...history, action]);
    const prompt = await renderChatPrompt(this.#sandbox, loaded.template, {
      messages,
      printer: this.formatter,
      systemPrompt: modelOptions.systemPrompt,
      tools: jsonTools,
      toolChoice: toolChoice === "required" ? "required" : "auto",
      bosToken: loaded.bosToken,
      eosToken: loaded.eosToken,
    });
    const tokenizeStart = performance.now();
    const tokens = this.#tokenizePrompt(loaded, prompt);
    const tokenizeMs = performance.now() - tokenizeStart;
    const limit = Math.min(
      loaded.context.sequenceContextSize,
      modelOptions.contextWindow ?? Number.POSITIVE_INFINITY,
    );
    const maxNewTokens = modelOptions.maxNewTokens;
    if (tokens.length >= limit || tokens.length + (maxNewTokens ?? 0) > limit) {
      throw new ContextOverflowError(tokens.length, limit, maxNewTokens);
    }
    // A context window smaller than the context bounds the output too.
    const boundedOptions =
      maxNewTokens === undefined && limit < loaded.context.sequenceContextSize
        ? { ...modelOptions, maxNewTokens: limit - tokens.length }
        : modelOptions;
    // Validates every native option now, before any generation of a batch starts.
    resolveGenerateOptions(
      tokens,
      toTokenOptions(boundedOptions, { grammar }),
      loaded.model.vocabSize,
      loaded.context.sequenceContextSize,
    );
    return { tokens, prompt, tokenizeMs, tools, grammar, modelOptions: boundedOptions, format, action };
  }

  #tokenizePrompt(loaded: Loaded, prompt: string): Int32Array {
    // The template writes special tokens as text (bos_token, <|im_start|>…): parse them as tokens.
    const tokens = loaded.model.tokenize(prompt, { addSpecial: false, parseSpecial: true });
    const { bos, addBos } = loaded.model.metadata;
    if (!addBos || bos < 0 || tokens[0] === bos) return tokens;
    const withBos = new Int32Array(tokens.length + 1);
    withBos[0] = bos;
    withBos.set(tokens, 1);
    return withBos;
  }

  #start<T>(
    prepared: ReadonlyArray<Prepared<T>>,
    options: ResolvedGenerateOptions<T>,
    requestStart: number,
  ): Array<ModelOutputThunk<T>> {
    const loaded = this.#loaded!;
    const streams: TokenStream[] = [];
    try {
      for (const item of prepared) {
        streams.push(
          loaded.context.generate(
            item.tokens,
            toTokenOptions(item.modelOptions, { grammar: item.grammar, signal: options.signal }),
          ),
        );
      }
    } catch (error) {
      // A later generation of the batch was refused (say its grammar): stop the ones already started.
      for (const stream of streams) stream.cancel();
      throw error;
    }
    return prepared.map((item, index) => {
      const thunk = new ModelOutputThunk<T>(null);
      thunk.action = item.action;
      thunk.modelOptions = item.modelOptions;
      thunk.generation.model = this.modelId;
      thunk.generation.provider = "llama.cpp";
      thunk.generation.streaming = true;
      thunk.generateLog = new GenerateLog({
        prompt: item.prompt,
        backend: `llama.cpp::${this.modelId}`,
        modelOptions: item.modelOptions,
        action: item.action,
        result: thunk as ModelOutputThunk<unknown>,
        extra: {
          chatTemplate: loaded.template.name,
          promptTokens: item.tokens.length,
          ...(item.grammar !== undefined && { grammar: item.grammar }),
        },
      });
      startGenerationRun<T>({
        thunk,
        stream: streams[index]!,
        requestStart,
        tokenizeMs: item.tokenizeMs,
        promptTokens: item.tokens.length,
        vocabSize: loaded.model.vocabSize,
        stopSequences: item.modelOptions.stopSequences ?? [],
        logits: item.modelOptions.logits,
        rawLogits: item.modelOptions.rawLogits,
        tools: item.tools,
        format: item.format,
        signal: options.signal,
        queueCapacity: this.#options.queueCapacity ?? 16,
        pieceText: (token) => this.#pieceText(token),
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

function pickTemplate(
  requested: string | undefined,
  fromModel: string | null,
  fileName: string,
): ChatTemplateSource {
  if (requested !== undefined) {
    if (isBuiltinChatTemplateName(requested)) {
      return { name: `builtin:${requested}`, source: builtinChatTemplates[requested] };
    }
    return { name: "custom", source: requested };
  }
  if (fromModel !== null && fromModel !== "") return { name: `gguf:${fileName}`, source: fromModel };
  return {
    name: `builtin:${fallbackChatTemplateName}`,
    source: builtinChatTemplates[fallbackChatTemplateName],
  };
}
