// The C++ greedy runner's llama-bench-like tg test (benchmarks/greedy-runner/greedy-runner.cpp): decode
// random tokens on node-llama-cpp's prebuilt libraries from an empty cache, logits never read. Used by
// decode-alone.mjs (--reference tg) and huge-pages.mjs. Needs `npm run build` (dist/).
import { execFileSync } from "node:child_process";
import { prebuiltLibraryFolder } from "../../dist/backends/llamacpp/native-addon.js";
import { greedyRunnerBinary } from "../../dist/bench/greedy-runner-process.js";
import { median } from "../../dist/bench/stats.js";

/** The median tokens/s of three tg repetitions of `tokens` tokens, in a fresh runner process. */
export function runnerTgTokensPerSecond({ modelPath, threads, tokens, hugePages }) {
  const output = execFileSync(
    greedyRunnerBinary(),
    [
      ...["--mode", "tg", "--model", modelPath, "--libs", prebuiltLibraryFolder("")],
      ...["--threads", String(threads), "--context", "512", "--tokens", String(tokens), "--reps", "3"],
      ...["--flash-attn", "off", "--huge-pages", hugePages ? "on" : "off"],
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  return median(JSON.parse(output.trim().split("\n").at(-1)).samples);
}
