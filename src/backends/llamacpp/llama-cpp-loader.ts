import { basename } from "node:path";
import { resolveDefaultModel, resolveModel } from "../../gguf/default-model.js";
import type { FlashAttention } from "./addon-types.js";
import {
  builtinChatTemplates,
  fallbackChatTemplateName,
  isBuiltinChatTemplateName,
} from "./builtin-chat-templates.js";
import type { ChatTemplateSource } from "./chat-prompt-builder.js";
import type { LlamaContext } from "./llama-context.js";
import { type LlamaModel, loadLlamaModel } from "./llama-model.js";

/** What a LlamaCppBackend holds once loaded. */
export interface LoadedLlama {
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly template: ChatTemplateSource;
  readonly bosToken: string;
  readonly eosToken: string;
}

export interface LlamaLoadSettings {
  readonly model?: string | undefined;
  readonly gpuLayers?: number | "max" | "auto" | undefined;
  readonly hugePages?: boolean | undefined;
  readonly sequences: number;
  readonly threads?: number | undefined;
  readonly contextSize?: number | undefined;
  readonly batchSize?: number | undefined;
  readonly flashAttention?: FlashAttention | undefined;
  readonly chatTemplate?: string | undefined;
}

/** Resolves the model (path or preset, generated on first use), loads it and creates one context. */
export async function loadLlama(settings: LlamaLoadSettings): Promise<LoadedLlama> {
  const path =
    settings.model === undefined ? await resolveDefaultModel() : await resolveModel(settings.model);
  const model = await loadLlamaModel(path, {
    ...(settings.gpuLayers !== undefined && { gpuLayers: settings.gpuLayers }),
    ...(settings.hugePages !== undefined && { hugePages: settings.hugePages }),
    // gpuLayers "auto" leaves room for this context's KV cache (the default context is 4096 per sequence).
    contextCells: Math.min((settings.contextSize ?? 4096) * settings.sequences, 2 ** 31 - 256),
  });
  try {
    const context = await model.createContext({
      sequences: settings.sequences,
      ...(settings.threads !== undefined && { threads: settings.threads }),
      ...(settings.contextSize !== undefined && { contextSize: settings.contextSize }),
      ...(settings.batchSize !== undefined && { batchSize: settings.batchSize }),
      ...(settings.flashAttention !== undefined && { flashAttention: settings.flashAttention }),
    });
    const metadata = model.metadata;
    return {
      model,
      context,
      template: pickChatTemplate(settings.chatTemplate, metadata.chatTemplate, basename(path)),
      bosToken: tokenText(model, metadata.bos),
      eosToken: tokenText(model, metadata.eos),
    };
  } catch (error) {
    model.dispose();
    throw error;
  }
}

/** The text of a token, special tokens included ("" for -1, a vocabulary without that token). */
export function tokenText(model: LlamaModel, token: number): string {
  if (token < 0) return "";
  return new TextDecoder().decode(model.tokenToPiece(token, { special: true }));
}

/** The caller's template (built-in name or Jinja source), else the GGUF's, else the named fallback. */
export function pickChatTemplate(
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

/** Text as a raw prompt: BOS when the model adds one, then the text with no special tokens parsed. */
export function tokenizeRawPrompt(model: LlamaModel, text: string): Int32Array {
  return model.tokenize(text, { addSpecial: true, parseSpecial: false });
}

/** Prompt tokens: special-token text the template wrote becomes those tokens; BOS is added once if the model wants it. */
export function tokenizePrompt(model: LlamaModel, prompt: string): Int32Array {
  const tokens = model.tokenize(prompt, { addSpecial: false, parseSpecial: true });
  const { bos, addBos } = model.metadata;
  if (!addBos || bos < 0 || tokens[0] === bos) return tokens;
  const withBos = new Int32Array(tokens.length + 1);
  withBos[0] = bos;
  withBos.set(tokens, 1);
  return withBos;
}
