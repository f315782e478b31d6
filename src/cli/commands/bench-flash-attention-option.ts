// --flash-attn of `bench ttfb` and `bench throughput`: one setting for every row, tessera's and the
// peers' alike, because their defaults differ (tessera "off" on the CPU, node-llama-cpp and llama.cpp's
// tools "auto") and rows compared with each other must do the same work.
import { Option } from "commander";
import { benchFlashAttentionDefault, flashAttentionChoices } from "../../bench/flash-attention-setting.js";

export function benchFlashAttentionOption(row: string): Option {
  return new Option(
    "--flash-attn <mode>",
    `flash attention of every ${row}, tessera's and the peers': auto, on or off`,
  )
    .choices(flashAttentionChoices)
    .default(benchFlashAttentionDefault);
}
