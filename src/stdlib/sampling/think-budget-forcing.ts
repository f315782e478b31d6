import type { Backend } from "../../core/backend.js";
import { CBlock } from "../../core/cblock.js";
import type { Context } from "../../core/context.js";
import type { GenerateLog } from "../../core/generate-log.js";
import { type ModelOptions, mergeModelOptions } from "../../core/model-options.js";
import { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Span } from "../../core/span.js";
import type { Formatter } from "../../formatting/formatter.js";
import { TemplateFormatter } from "../../formatting/template-formatter.js";
import { MissingUsageError } from "../errors/missing-usage-error.js";

export interface ThinkBudgetForcingOptions {
  /** Tokens for the think block (default 4096); 0 skips thinking. */
  thinkMaxTokens?: number;
  /** Tokens for the answer; null: until the model stops (default). */
  answerMaxTokens?: number | null;
  startThinkToken?: string;
  endThinkToken?: string;
  beginResponseToken?: string;
  /** Appended to force more thinking when the model closes its think block early; "" makes the budget a cap only. */
  thinkMoreSuffix?: string;
  /** Appended to ask for the final answer (default "", e.g. "The final answer is:"); null returns the think block alone. */
  answerSuffix?: string | null;
  modelOptions?: ModelOptions;
  /** Overlays for the think passes and the answer pass (say a grammar that forces the think markup). */
  thinkModelOptions?: ModelOptions;
  answerModelOptions?: ModelOptions;
  signal?: AbortSignal;
}

/** What one budget-forced generation spent, kept in the thunk's meta.budgetForcing. */
export interface BudgetForcingUsage {
  thinkPasses: number;
  thinkTokens: number;
  answerTokens: number;
}

// A think pass shorter than this is taken as the model having nothing more to think (Mellea's min_char_len).
const minimumThoughtCharacters = 10;

/**
 * Budget forcing (s1, arXiv:2501.19393), as Mellea's think_budget_forcing: the action is printed and followed
 * by the start-of-think token, then think passes run with the tokens left of thinkMaxTokens. When the model
 * closes its think block early and a thinkMoreSuffix is set, the block is reopened with the suffix ("Wait")
 * and thinking goes on; then the end-of-think token and the answer suffix are appended and one answer pass
 * runs with answerMaxTokens. Each pass is a fresh generateFromRaw of the text so far (on the local backend
 * the shared prefix reuses its KV cells). The returned thunk is computed: the whole text, the summed usage.
 * Unlike Mellea, the answer prompt is the printed action plus the assembled response once (Mellea appends
 * the response to a prompt that already holds it, repeating the think block).
 */
export async function thinkBudgetForcing(
  backend: Backend,
  action: Span,
  context: Context,
  options: ThinkBudgetForcingOptions = {},
): Promise<ModelOutputThunk> {
  const thinkMaxTokens = options.thinkMaxTokens ?? 4096;
  const startThink = options.startThinkToken ?? "<think>";
  const endThink = options.endThinkToken ?? "</think>";
  const beginResponse = options.beginResponseToken ?? "";
  const thinkMore = options.thinkMoreSuffix ?? "";
  // Mellea v0.7's default: no suffix, the answer pass continues right after the think block.
  const answerSuffix = options.answerSuffix === undefined ? "" : options.answerSuffix;
  const formatter =
    (backend as { formatter?: Formatter }).formatter ?? new TemplateFormatter(backend.modelId);
  const printed = formatter.print(action);
  const usage: BudgetForcingUsage = { thinkPasses: 0, thinkTokens: 0, answerTokens: 0 };
  let promptTokens: number | null = null;
  let lastLog: GenerateLog | null = null;

  const pass = async (prompt: string, layers: Array<ModelOptions | undefined>) => {
    options.signal?.throwIfAborted();
    const [thunk] = await backend.generateFromRaw([new CBlock(prompt)], context, {
      modelOptions: mergeModelOptions(...layers),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const text = await thunk!.avalue();
    const passUsage = thunk!.generation.usage;
    if (passUsage === null) throw new MissingUsageError(backend.modelId);
    promptTokens ??= passUsage.promptTokens;
    lastLog = thunk!.generateLog;
    return { text, tokens: passUsage.completionTokens };
  };

  const responses: string[] = startThink ? [startThink] : [];
  let prompt = printed + startThink;
  let remaining = thinkMaxTokens;
  while (remaining > 0) {
    const { text, tokens } = await pass(prompt, [
      options.modelOptions,
      options.thinkModelOptions,
      { maxNewTokens: remaining },
    ]);
    usage.thinkPasses += 1;
    usage.thinkTokens += tokens;
    remaining = thinkMaxTokens - usage.thinkTokens;
    // Without a suffix the budget is only a cap; with the budget spent there is nothing to force.
    if (thinkMore === "" || remaining <= 0) {
      responses.push(text);
      break;
    }
    const thought = endThink ? text.split(endThink)[0]! : text;
    if (thought.trim().length <= minimumThoughtCharacters) {
      responses.push(text);
      break;
    }
    const step = `${thought} ${thinkMore}`;
    responses.push(step);
    prompt += step;
  }

  let response = responses.join("");
  if (answerSuffix !== null) {
    if (endThink && !response.includes(endThink)) response += ` ${endThink}`;
    if (beginResponse && !response.includes(beginResponse)) response += ` ${beginResponse}`;
    if (answerSuffix) response += ` ${answerSuffix}`;
    const answerLimit = options.answerMaxTokens ?? null;
    const { text, tokens } = await pass(printed + response, [
      options.modelOptions,
      options.answerModelOptions,
      answerLimit === null ? undefined : { maxNewTokens: answerLimit },
    ]);
    usage.answerTokens = tokens;
    response += text;
  }
  const result = new ModelOutputThunk(response);
  result.action = action;
  result.parsedRepr = response;
  const completionTokens = usage.thinkTokens + usage.answerTokens;
  result.generation.usage = {
    promptTokens: promptTokens ?? 0,
    completionTokens,
    totalTokens: (promptTokens ?? 0) + completionTokens,
  };
  result.generation.model = backend.modelId;
  result.meta.budgetForcing = usage;
  // As Mellea: the last pass's log stands for the whole (there is no merge of logs).
  result.generateLog = lastLog;
  return result;
}
