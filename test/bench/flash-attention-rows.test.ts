// Every row of `bench ttfb` and `bench throughput` runs with the same flash attention setting: tessera's
// CPU default is "off" while node-llama-cpp, llama-server, llama-bench and the greedy runner default to
// "auto", so a row left on its library's default does other work than its neighbours. The in-process
// rows are opened for real and asked what their context was created with; the child processes are
// checked through the arguments they are spawned with.
import { describe, expect, it } from "vitest";
import type { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { nodeLlamaCppFlashAttention } from "../../src/bench/flash-attention-setting.js";
import { greedyRunnerArgs } from "../../src/bench/greedy-runner-process.js";
import type { BackendTarget } from "../../src/bench/targets/backend-target.js";
import type { NodeLlamaCppTarget } from "../../src/bench/targets/node-llama-cpp-target.js";
import { llamaBenchArgs } from "../../src/bench/throughput-benchmark.js";
import { llamaServerArgs, tesseraServeArgs, ttfbTargets } from "../../src/bench/ttfb-targets.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

/** The value following `flag` in `args`, or undefined when the flag is not there. */
function valueAfter(args: ReadonlyArray<string>, flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index === -1 ? undefined : args[index + 1];
}

const rowOptions = {
  modelPath: "/models/tiny.gguf",
  modelId: "tiny",
  threads: 1,
  contextSize: 256,
  rows: [],
  remotes: [],
};

describe("the flash attention setting of the benchmark rows", () => {
  describe("in the arguments of the child processes", () => {
    for (const setting of ["auto", "on", "off"] as const) {
      it(`passes ${setting} to tessera serve, llama-server, llama-bench and the greedy runner`, () => {
        const options = { ...rowOptions, flashAttention: setting };
        expect(valueAfter(tesseraServeArgs(options, "/dist/cli/main.js", 8080, 1, 256), "--flash-attn")).toBe(
          setting,
        );
        expect(valueAfter(llamaServerArgs(options, 8080, 4), "-fa")).toBe(setting);
        const bench = llamaBenchArgs({
          ...options,
          promptTokens: 64,
          generatedTokens: 16,
          repetitions: 1,
          logitsModes: ["off"],
          rows: ["llama-bench"],
        });
        expect(valueAfter(bench, "-fa")).toBe(setting);
        const runner = greedyRunnerArgs({ ...options, chat: true }, "/libs");
        expect(valueAfter(runner, "--flash-attn")).toBe(setting);
      });
    }
  });

  it("spells it node-llama-cpp's way: auto stays auto, on and off become true and false", () => {
    expect(nodeLlamaCppFlashAttention("auto")).toBe("auto");
    expect(nodeLlamaCppFlashAttention("on")).toBe(true);
    expect(nodeLlamaCppFlashAttention("off")).toBe(false);
  });

  it("creates the tessera in-process rows' contexts with it", async () => {
    const modelPath = await resolveDefaultModel();
    const targets = ttfbTargets({
      ...rowOptions,
      modelPath,
      rows: ["tessera", "tessera-2nd-turn"],
      flashAttention: "on",
    });
    expect(targets).toHaveLength(2);
    for (const target of targets) {
      await target.prepare(new AbortController().signal);
      try {
        const backend = (target as BackendTarget).backend as LlamaCppBackend;
        expect(backend.context.flashAttention, target.name).toBe("on");
      } finally {
        await target.close();
      }
    }
  }, 60_000);

  it("creates the node-llama-cpp row's context with it", async () => {
    const modelPath = await resolveDefaultModel();
    const [target] = ttfbTargets({
      ...rowOptions,
      modelPath,
      rows: ["node-llama-cpp"],
      flashAttention: "off",
    });
    await target!.prepare(new AbortController().signal);
    try {
      // node-llama-cpp's context reports the setting it was created with (its default is "auto").
      expect((target as NodeLlamaCppTarget).flashAttention).toBe(false);
    } finally {
      await target!.close();
    }
  }, 60_000);

  it("defaults to off, tessera's CPU default, on every row", async () => {
    const [target] = ttfbTargets({
      ...rowOptions,
      modelPath: await resolveDefaultModel(),
      rows: ["node-llama-cpp"],
    });
    await target!.prepare(new AbortController().signal);
    try {
      expect((target as NodeLlamaCppTarget).flashAttention).toBe(false);
    } finally {
      await target!.close();
    }
    expect(valueAfter(llamaServerArgs(rowOptions, 8080, 1), "-fa")).toBe("off");
  }, 60_000);
});
