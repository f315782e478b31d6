import type { z } from "zod";
import type { AbstractTool, JsonTool } from "../../core/abstract-tool.js";
import type { GenerateAction } from "../../core/backend.js";
import type { ResolvedGenerateOptions } from "../../core/base-backend.js";
import { ContextOverflowError } from "../../core/errors/context-overflow-error.js";
import { InvalidModelOptionError } from "../../core/errors/invalid-model-option-error.js";
import type { Span } from "../../core/span.js";
import type { ChatFormatter } from "../../formatting/chat-formatter.js";
import { renderChatPrompt } from "./chat-prompt-builder.js";
import type { ChatTemplateSandbox } from "./chat-template-sandbox.js";
import { collectTools } from "./collect-tools.js";
import { grammarForJsonSchema, jsonSchemaOfZod } from "./json-schema-grammar.js";
import { type LoadedLlama, tokenizePrompt, tokenizeRawPrompt } from "./llama-cpp-loader.js";
import { type LlamaCppModelOptions, toTokenOptions } from "./llama-cpp-model-options.js";
import {
  type ResolvedGenerateOptions as ResolvedNativeOptions,
  resolveGenerateOptions,
} from "./native-generate-options.js";
import type { PrefillAhead } from "./prefill-ahead.js";
import type { PrefixPrefill } from "./prefix-prefill.js";
import { toolCallGrammar } from "./tool-call-format.js";

/** One request (or one of a batch), checked and tokenized, ready to start. */
export interface PreparedRequest<T> {
  readonly action: GenerateAction<T>;
  readonly prompt: string;
  readonly tokens: Int32Array;
  readonly tokenizeMs: number;
  /** Rendering the chat template, the sandbox round trip included. */
  readonly templateMs: number;
  /** performance.now() marks: the template render started, and tokenizing ended (first-token stages). */
  readonly templateStartedAt: number;
  readonly tokenizeEndedAt: number;
  readonly tools: Record<string, AbstractTool>;
  readonly grammar: string | undefined;
  readonly modelOptions: LlamaCppModelOptions;
  readonly format: z.ZodType<T> | undefined;
  /** The native options, checked against the backend's context: what #start starts, unchecked again. */
  readonly native: ResolvedNativeOptions;
  /** The prefill of the prompt's first part started while the rest was tokenized; cancel it if unused. */
  readonly prefill: PrefixPrefill | null;
}

export interface PreparationInput<T> {
  readonly loaded: LoadedLlama;
  readonly sandbox: ChatTemplateSandbox;
  readonly formatter: ChatFormatter;
  readonly action: GenerateAction<T>;
  /** The context's view (empty for raw generation). */
  readonly history: readonly Span[];
  /** Spans whose representations may carry tools. */
  readonly toolSpans: readonly Span[];
  readonly options: ResolvedGenerateOptions<T>;
  /** Prefills a long prompt's first part while the rest is tokenized; null: never. */
  readonly prefillAhead: PrefillAhead | null;
}

/**
 * Everything that can fail before decoding, in order: option combinations, the grammar (zod format or
 * tool calls), the chat template, tokenization, the context-size check (ContextOverflowError with both
 * numbers) and every native option. Nothing native starts here but a long prompt's prefill-ahead, which
 * samples nothing and is cancelled when the request fails.
 */
export async function prepareRequest<T>(input: PreparationInput<T>): Promise<PreparedRequest<T>> {
  const { loaded, options } = input;
  const modelOptions = options.modelOptions as LlamaCppModelOptions;
  const format = options.format;
  const toolChoice = modelOptions.toolChoice ?? "auto";
  const callMode = toolChoice === "required" ? "required" : "auto";
  // A format brings its own grammar, so tools are not offered alongside it.
  const tools =
    format !== undefined || toolChoice === "none"
      ? {}
      : collectTools([modelOptions.tools, options.tools], input.toolSpans);
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
  const raw = modelOptions.rawPrompt === true;
  if (raw && (jsonTools.length > 0 || input.history.length > 0 || modelOptions.systemPrompt !== undefined)) {
    throw new InvalidModelOptionError(
      "rawPrompt",
      true,
      jsonTools.length > 0
        ? "offered tools need the chat template (their instructions and call format); drop rawPrompt or the tools"
        : modelOptions.systemPrompt !== undefined
          ? "a system prompt needs the chat template; drop rawPrompt or systemPrompt (or put it in the text)"
          : "a raw prompt is the action's text alone, with no chat history; use generateFromRaw, or drop rawPrompt",
    );
  }
  const grammar =
    modelOptions.grammar ??
    (format !== undefined
      ? await grammarForJsonSchema(jsonSchemaOfZod(format))
      : jsonTools.length > 0
        ? await toolCallGrammar(jsonTools, callMode)
        : undefined);
  const templateStart = performance.now();
  // A raw prompt is continued as text (OpenAI's legacy completions): the action's printed text, no
  // template. Its special-token look-alikes stay text, unlike llama-server's /completion, which parses
  // them: a user's "<s>" or "[INST]" is not a control token here (the safer reading for untrusted text).
  const prompt = raw
    ? input.formatter.print(input.action)
    : await renderChatPrompt(input.sandbox, loaded.template, {
        messages: input.formatter.toChatMessages([...input.history, input.action]),
        printer: input.formatter,
        systemPrompt: modelOptions.systemPrompt,
        tools: jsonTools,
        toolChoice: callMode,
        bosToken: loaded.bosToken,
        eosToken: loaded.eosToken,
      });
  const tokenizeStart = performance.now();
  const templateMs = tokenizeStart - templateStart;
  const sequenceSize = loaded.context.sequenceContextSize;
  const limit = Math.min(sequenceSize, modelOptions.contextWindow ?? Number.POSITIVE_INFINITY);
  const maxNewTokens = modelOptions.maxNewTokens;
  // The refusal names the option that set the limit: a smaller contextWindow, else the context's size.
  const overflow = {
    maxTokensOption: "maxNewTokens",
    limitOption: limit < sequenceSize ? "contextWindow" : "contextSize",
  } as const;
  refuseSurelyTooLong(loaded, prompt, limit, maxNewTokens, overflow);
  const tokenize = raw
    ? (text: string) => tokenizeRawPrompt(loaded.model, text)
    : (text: string) => tokenizePrompt(loaded.model, text);
  // A long prompt's first part starts prefilling now, while this thread tokenizes the whole prompt.
  const prefill = input.prefillAhead?.start(loaded.context, prompt, tokenize) ?? null;
  try {
    const tokens = tokenize(prompt);
    const tokenizeEndedAt = performance.now();
    const tokenizeMs = tokenizeEndedAt - tokenizeStart;
    if (tokens.length >= limit || tokens.length + (maxNewTokens ?? 0) > limit) {
      throw new ContextOverflowError(tokens.length, limit, maxNewTokens, overflow);
    }
    // A context window smaller than the context bounds the output too.
    const bounded =
      maxNewTokens === undefined && limit < sequenceSize
        ? { ...modelOptions, maxNewTokens: limit - tokens.length }
        : modelOptions;
    // Validates every native option now, so no generation of a batch starts when one of them is bad; the
    // result is what starts, so the request path checks them once. No signal: the thunk listens to the
    // caller's signal (once) and cancels the run's stream. tokenLogprobs off: nothing after the stream run
    // reads an event's own logprob (logits traces, server logprobs and token signals use the captures'
    // log-sum-exp), and greedy decoding without captures then skips a pass over the vocabulary per token
    // (docs/native.md).
    const native = resolveGenerateOptions(
      tokens,
      {
        ...toTokenOptions(bounded, { grammar }),
        tokenLogprobs: false,
        ...(prefill !== null && { afterPrefill: prefill }),
      },
      loaded.model.vocabSize,
      sequenceSize,
    );
    return {
      action: input.action,
      prompt,
      tokens,
      tokenizeMs,
      templateMs,
      templateStartedAt: templateStart,
      tokenizeEndedAt,
      tools,
      grammar,
      modelOptions: bounded,
      format,
      native,
      prefill,
    };
  } catch (error) {
    // The prefill samples nothing: cancelled, it leaves only the cells it decoded (a cache).
    prefill?.cancel();
    throw error;
  }
}

/**
 * Tokenizing is synchronous and costs about a second per few MiB: a request far past the context would
 * hold the thread (a server's too) for nothing. Each token stands for at most the vocabulary's longest
 * piece, so bytes / that is a lower bound on the count; past the limit, refuse without tokenizing. Only
 * for BPE and SentencePiece vocabularies, which keep every input byte; a normalizing one (T5's Unigram
 * collapses whitespace) could make fewer tokens than the bound says.
 */
function refuseSurelyTooLong(
  loaded: LoadedLlama,
  prompt: string,
  limit: number,
  maxNewTokens: number | undefined,
  overflow: { maxTokensOption: string; limitOption: "contextSize" | "contextWindow" },
): void {
  const vocabulary = loaded.model.metadata.values["tokenizer.ggml.model"];
  if (vocabulary !== "gpt2" && vocabulary !== "llama") return;
  // A prompt of fewer characters than the limit is quick to tokenize: skip the bound for the requests that
  // are nearly all of them. (The longest token's bytes were found when the model loaded.)
  if (prompt.length < limit) return;
  const atLeast = Math.ceil(Buffer.byteLength(prompt, "utf8") / loaded.model.longestTokenBytes);
  // Only a prompt that alone surely overflows is refused untokenized: one that may fit is counted exactly
  // below, so a refusal that blames the output (and says how much fits) rests on an exact count. That
  // prompt is under limit × the longest token's bytes, no more than what a fitting prompt costs to tokenize.
  if (atLeast >= limit) {
    throw new ContextOverflowError(atLeast, limit, maxNewTokens, {
      ...overflow,
      promptTokensAtLeast: true,
    });
  }
}
