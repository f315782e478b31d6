// The request field behind each library option (ModelOptions and the native sampler's names), so that an
// option the backend refuses is reported to HTTP clients in the terms of their request.
const fieldOfOption: Readonly<Record<string, string>> = {
  maxNewTokens: "max_tokens",
  maxTokens: "max_tokens",
  temperature: "temperature",
  topP: "top_p",
  topK: "top_k",
  minP: "min_p",
  typicalP: "typical_p",
  repeatPenalty: "repetition_penalty",
  frequencyPenalty: "frequency_penalty",
  presencePenalty: "presence_penalty",
  seed: "seed",
  stopSequences: "stop",
  logitBias: "logit_bias",
  logits: "top_logprobs",
  rawLogits: "tessera_raw_logits_top_k",
  thinking: "reasoning_effort",
};

/** The request field for a library option name such as `topP` or `logitBias[3]`, or null if none. */
export function requestFieldOf(optionName: string): string | null {
  const base = /^[A-Za-z]+/.exec(optionName)?.[0] ?? "";
  return fieldOfOption[base] ?? null;
}

/** `message` with every mention of the option `optionName` (its base name) replaced by `field`. */
export function renameOption(message: string, optionName: string, field: string): string {
  const base = /^[A-Za-z]+/.exec(optionName)?.[0] ?? optionName;
  return message.replace(new RegExp(`\\b${base}\\b`, "g"), field);
}
