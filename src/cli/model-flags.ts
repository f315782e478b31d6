// The flags every generating command shares: which model, how many threads, and the sampler. They map
// one to one onto ModelOptions, which the backend validates again (so a bad combination still fails
// before any work, with the backend's typed error).
import { type Command, Option } from "commander";
import type { FlashAttention } from "../backends/llamacpp/addon-types.js";
import type { ModelOptions } from "../core/model-options.js";
import { modelPresetNames } from "../gguf/model-presets.js";
import { trainedPresetNames } from "../gguf/trained-presets.js";
import { defaultCliModel } from "./default-models.js";
import { integerArgument, numberArgument } from "./number-arguments.js";

export interface ModelFlags {
  model?: string;
  threads?: number;
  contextSize?: number;
  flashAttn?: FlashAttention;
  /** false with --no-huge-pages. */
  hugePages?: boolean;
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  typicalP?: number;
  repeatPenalty?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  seed?: number;
  maxTokens?: number;
  stop?: string[];
  system?: string;
  ignoreEos?: boolean;
}

export function addModelFlags(command: Command, defaults: { maxTokens: number }): Command {
  // Errors are one line (the usage is one --help away), whatever the parent command says.
  return (
    command
      .showHelpAfterError(false)
      .showSuggestionAfterError(false)
      .option(
        "-m, --model <file|preset>",
        `a GGUF file, or a preset: ${modelPresetNames.join(", ")} (each [:type], e.g. llama-3.2-1b:q4_0), or a trained one: ${trainedPresetNames.join(", ")} (default: ${defaultCliModel})`,
      )
      .option("--threads <n>", "CPU threads (default: physical cores)", integerArgument(1, 512))
      .option("--context-size <n>", "tokens of context (prompt + answer)", integerArgument(16))
      .addOption(flashAttentionOption())
      .addOption(noHugePagesOption())
      .option("-n, --max-tokens <n>", "most tokens to generate", integerArgument(1), defaults.maxTokens)
      .option("-t, --temperature <t>", "sampling temperature; 0 = greedy", numberArgument(0))
      .option("--top-k <k>", "keep the k most likely tokens (0 = off)", integerArgument(0))
      .option("--top-p <p>", "nucleus sampling, in (0, 1]", numberArgument(0, 1, { exclusiveMinimum: true }))
      .option("--min-p <p>", "drop tokens below p × the top probability", numberArgument(0, 1))
      .option(
        "--typical-p <p>",
        "locally typical sampling, in (0, 1]",
        numberArgument(0, 1, { exclusiveMinimum: true }),
      )
      // The sampler's own range (llama.cpp divides by it), so a bad value is refused in the flag's words.
      .option(
        "--repeat-penalty <x>",
        "penalty for repeated tokens (1 = off)",
        numberArgument(0.000001, 1_000_000),
      )
      .option("--frequency-penalty <x>", "OpenAI-style frequency penalty", numberArgument())
      .option("--presence-penalty <x>", "OpenAI-style presence penalty", numberArgument())
      .option("--seed <n>", "sampler seed (same seed, same output)", integerArgument(0, 2 ** 32 - 1))
      .option("--stop <text...>", "stop when the output contains this text")
      .option("--system <prompt>", "system prompt")
      .option("--ignore-eos", "keep generating past the end-of-generation token")
  );
}

/** --flash-attn, shared with serve: the context's flashAttention (LlamaContextOptions). */
export function flashAttentionOption(): Option {
  return new Option(
    "--flash-attn <mode>",
    "flash attention: auto, on or off (default: off on the CPU, where it slows decoding at depth; auto with GPU layers)",
  ).choices(["auto", "on", "off"]);
}

/** --no-huge-pages, shared with serve: the model's hugePages load option (LoadLlamaModelOptions). */
export function noHugePagesOption(): Option {
  return new Option(
    "--no-huge-pages",
    "leave llama.cpp's memory on small pages (default on Linux: ask for transparent huge pages, faster decode on VMs)",
  );
}

/** The ModelOptions the flags ask for (unset flags are left out, so backend defaults apply). */
export function modelOptionsFromFlags(flags: ModelFlags): ModelOptions & { ignoreEos?: boolean } {
  return {
    ...(flags.temperature !== undefined && { temperature: flags.temperature }),
    ...(flags.topK !== undefined && { topK: flags.topK }),
    ...(flags.topP !== undefined && { topP: flags.topP }),
    ...(flags.minP !== undefined && { minP: flags.minP }),
    ...(flags.typicalP !== undefined && { typicalP: flags.typicalP }),
    ...(flags.repeatPenalty !== undefined && { repeatPenalty: flags.repeatPenalty }),
    ...(flags.frequencyPenalty !== undefined && { frequencyPenalty: flags.frequencyPenalty }),
    ...(flags.presencePenalty !== undefined && { presencePenalty: flags.presencePenalty }),
    ...(flags.seed !== undefined && { seed: flags.seed }),
    ...(flags.maxTokens !== undefined && { maxNewTokens: flags.maxTokens }),
    ...(flags.stop !== undefined && { stopSequences: flags.stop }),
    ...(flags.system !== undefined && { systemPrompt: flags.system }),
    ...(flags.ignoreEos === true && { ignoreEos: true }),
  };
}

/** Sampler settings as shown in reports (only those set). */
export function describeSampler(flags: ModelFlags): Record<string, string | number | boolean> {
  const shown: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(modelOptionsFromFlags(flags))) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      shown[key] = value;
    else if (Array.isArray(value)) shown[key] = value.join(", ");
  }
  return shown;
}
