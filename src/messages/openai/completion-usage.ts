import type { ModelOutputThunk } from "../../core/model-output-thunk.js";

/** Token usage in the OpenAI wire shape (snake_case, as a server returns it). */
export interface CompletionUsage {
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
}

/** The output's usage in the wire shape, or null when the backend reported none. */
export function buildCompletionUsage(output: ModelOutputThunk<unknown>): CompletionUsage | null {
  const usage = output.generation.usage;
  if (usage === null) return null;
  const promptTokens = usage.promptTokens ?? 0;
  const completionTokens = usage.completionTokens ?? 0;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: usage.totalTokens ?? promptTokens + completionTokens,
  };
}
