// The flash attention setting every row of `bench ttfb` and `bench throughput` runs with. tessera's
// context defaults to "off" on the CPU (faster decoding at depth there), while node-llama-cpp,
// llama-server, llama-bench and the greedy runner leave it to llama.cpp ("auto", which turns it on for
// the CPU): a row left on its own library's default would do other work than the row it is compared with.
import type { FlashAttention } from "../backends/llamacpp/addon-types.js";

export type { FlashAttention };

export const flashAttentionChoices: readonly FlashAttention[] = ["auto", "on", "off"];

/** The benchmarks' default: tessera's own on the CPU, where they run. */
export const benchFlashAttentionDefault: FlashAttention = "off";

/** node-llama-cpp's createContext spelling of the setting: "auto", true or false. */
export function nodeLlamaCppFlashAttention(setting: FlashAttention): "auto" | boolean {
  return setting === "auto" ? "auto" : setting === "on";
}

/** The sentence the reports print under their tables. */
export function flashAttentionNote(setting: FlashAttention): string {
  return `Flash attention: ${setting} on every row (\`--flash-attn ${setting}\`).`;
}
