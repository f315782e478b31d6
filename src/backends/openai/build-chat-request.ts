import { z } from "zod";
import type { AbstractTool } from "../../core/abstract-tool.js";
import type { GenerateAction } from "../../core/backend.js";
import type { ResolvedGenerateOptions } from "../../core/base-backend.js";
import { Component } from "../../core/component.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { Span } from "../../core/span.js";
import type { Formatter } from "../../formatting/formatter.js";
import { Message } from "../../messages/components/message.js";
import { messageToOpenAIMessage } from "../../messages/openai/message-to-openai-message.js";
import { shouldReplayReasoning } from "../../messages/openai/should-replay-reasoning.js";
import { providerFieldsFor } from "./provider-fields.js";

/** The request body field tessera serve reads to return raw (pre-sampler) logits top-k. */
export const rawLogitsExtensionField = "tessera_raw_logits_top_k";

/** OpenAI caps top_logprobs at 20; servers that allow more still accept 20. */
const maxTopLogprobs = 20;

export interface ChatRequest {
  body: Record<string, unknown>;
  /** The tools offered, by name, to bind the calls that come back. */
  tools: Record<string, AbstractTool<unknown, unknown>>;
  /** top_logprobs asked for; null when logprobs were not requested. */
  topLogprobs: number | null;
}

/** The chat-completions body for `action` after `history`, with the call's options mapped to wire fields. */
export function buildChatRequest<T>(
  model: string,
  history: readonly Span[],
  action: GenerateAction<T>,
  options: ResolvedGenerateOptions<T>,
  formatter: Formatter,
  stream: boolean,
  toolSpans: readonly Span[] = [],
): ChatRequest {
  const modelOptions = options.modelOptions;
  const spans = [...history, action as Span];
  const messages = formatter.toChatMessages(spans);
  // One message per span (the formatter maps them one to one); a system prompt added below has no span.
  const spanOf: Array<Span | null> = [...spans];
  if (modelOptions.systemPrompt !== undefined && messages[0]?.role !== "system") {
    messages.unshift(new Message("system", modelOptions.systemPrompt));
    spanOf.unshift(null);
  }
  const replay = shouldReplayReasoning(messages, "openai");
  const wireMessages = messages.map((message, index) => {
    // Documents only reach the model through the template; plain messages go as they are.
    const wire = messageToOpenAIMessage(message, message.documents ? formatter : null, replay[index]);
    const span = spanOf[index];
    const extra = span === null || span === undefined ? null : providerFieldsFor(span, "openai");
    // The fields tessera knows win on a collision, as in Mellea.
    return extra === null ? wire : { ...extra, ...wire };
  });

  const tools = collectTools(action, toolSpans, options);
  const body: Record<string, unknown> = { model, messages: wireMessages, stream };
  if (stream) body.stream_options = { include_usage: true };
  Object.assign(body, samplingFields(modelOptions));
  const toolList = Object.values(tools);
  if (toolList.length > 0) body.tools = toolList.map((tool) => tool.asJsonTool());
  if (options.format !== undefined) {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(options.format) as Record<string, unknown>;
    body.response_format = { type: "json_schema", json_schema: { name: "response", schema, strict: true } };
  }
  let topLogprobs: number | null = null;
  if (modelOptions.logits !== undefined && modelOptions.logits !== false) {
    // "full" has no wire form: the widest top-k the protocol allows stands in for it.
    topLogprobs =
      modelOptions.logits === "full" ? maxTopLogprobs : Math.min(modelOptions.logits, maxTopLogprobs);
    body.logprobs = true;
    body.top_logprobs = topLogprobs;
  }
  if (typeof modelOptions.rawLogits === "number") body[rawLogitsExtensionField] = modelOptions.rawLogits;
  return { body, tools, topLogprobs };
}

function samplingFields(options: ModelOptions): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    temperature: options.temperature,
    top_p: options.topP,
    seed: options.seed,
    max_tokens: options.maxNewTokens,
    stop: options.stopSequences,
    frequency_penalty: options.frequencyPenalty,
    presence_penalty: options.presencePenalty,
    logit_bias: options.logitBias,
    // Not in OpenAI's API, but vLLM, llama-server and tessera serve read them.
    top_k: options.topK,
    min_p: options.minP,
    typical_p: options.typicalP,
    repetition_penalty: options.repeatPenalty,
    reasoning_effort: typeof options.thinking === "string" ? options.thinking : undefined,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * The tools offered: those the context's earlier actions carry (context.actionsForAvailableTools(), as in
 * Mellea), then the action's own, then the call's; a later one of the same name replaces an earlier one.
 */
function collectTools<T>(
  action: GenerateAction<T>,
  toolSpans: readonly Span[],
  options: ResolvedGenerateOptions<T>,
): Record<string, AbstractTool<unknown, unknown>> {
  const tools: Record<string, AbstractTool<unknown, unknown>> = {};
  for (const span of [...toolSpans, action as Span]) {
    if (!Component.isInstance(span)) continue;
    const representation = span.formatForLlm();
    if (typeof representation !== "string") {
      for (const tool of Object.values(representation.tools ?? {}))
        tools[tool.name] = tool as AbstractTool<unknown, unknown>;
    }
  }
  for (const tool of [...(options.modelOptions.tools ?? []), ...(options.tools ?? [])]) {
    tools[tool.name] = tool as AbstractTool<unknown, unknown>;
  }
  return tools;
}
