// The temperature `tessera bench strategies` samples tiny-arith with: the preset records it, the benchmark
// finds it by name or by the committed file, and at it the three strategy targets hold at once on
// held-out problems (one sample 30-90%, a majority of 8 at least 10 points above one sample, rejection
// sampling with the checking validator ≥ 95% within 8). At the default 0.9 the vote gained only 3.5 points.
import { describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import {
  defaultStrategyTemperature,
  runStrategiesBenchmark,
  type StrategiesResult,
  strategyTemperatureFor,
} from "../../src/bench/strategies-benchmark.js";
import { strategiesMarkdown } from "../../src/bench/strategies-report.js";
import { checkableStrategyTasks } from "../../src/bench/strategy-tasks.js";
import type { GenerateAction, GenerateResult } from "../../src/core/backend.js";
import type { ResolvedGenerateOptions } from "../../src/core/base-backend.js";
import type { Context } from "../../src/core/context.js";
import type { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { trainedPresetPath, trainedPresets } from "../../src/gguf/trained-presets.js";
import { evaluateAddition } from "../../src/training/addition-evaluation.js";
import { sortingSplit } from "../../src/training/sorting-task.js";
import { runCli } from "../cli/support/run-cli.js";

describe("tiny-arith's strategy temperature", () => {
  it("is the preset's own, found by name or by the committed file; other models get the default", () => {
    const own = trainedPresets["tiny-arith"].strategyTemperature;
    expect(strategyTemperatureFor("tiny-arith")).toBe(own);
    expect(strategyTemperatureFor(trainedPresetPath("tiny-arith"))).toBe(own);
    expect(strategyTemperatureFor("tiny")).toBe(defaultStrategyTemperature);
    expect(strategyTemperatureFor("tiny-text")).toBe(defaultStrategyTemperature);
  });

  it("meets the strategy targets on the first 200 held-out problems", async () => {
    const problems = sortingSplit().heldOut.slice(0, 200);
    const result = await evaluateAddition(trainedPresetPath("tiny-arith"), problems, {
      temperature: strategyTemperatureFor("tiny-arith"),
      seed: 1,
      samples: 8,
    });
    const single = result.accuracy * 100;
    expect(single).toBeGreaterThanOrEqual(30);
    expect(single).toBeLessThanOrEqual(90);
    expect(result.majorityAccuracy * 100 - single).toBeGreaterThanOrEqual(10);
    expect(result.rejectionAccuracy * 100).toBeGreaterThanOrEqual(95);
  }, 120_000);
});

describe("runStrategiesBenchmark on tiny-arith", () => {
  // The real backend on the committed model; the subclass only records the temperature of every call.
  class RecordingBackend extends LlamaCppBackend {
    readonly temperatures = new Set<unknown>();
    protected override doGenerateFromContext<T>(
      action: GenerateAction<T>,
      context: Context,
      options: ResolvedGenerateOptions<T>,
    ): Promise<GenerateResult<T>> {
      this.temperatures.add(options.modelOptions.temperature);
      return super.doGenerateFromContext(action, context, options);
    }
    protected override doGenerateFromRaw<T>(
      actions: ReadonlyArray<GenerateAction<T>>,
      context: Context,
      options: ResolvedGenerateOptions<T>,
    ): Promise<Array<ModelOutputThunk<T>>> {
      this.temperatures.add(options.modelOptions.temperature);
      return super.doGenerateFromRaw(actions, context, options);
    }
  }

  async function run(model: string): Promise<{ sent: unknown[]; result: StrategiesResult }> {
    const backend = new RecordingBackend({
      model: trainedPresetPath("tiny-arith"),
      threads: 1,
      sequences: 4,
    });
    try {
      await backend.load();
      const result = await runStrategiesBenchmark({
        backend,
        model,
        threads: 1,
        tasks: checkableStrategyTasks("sorting", 1),
        runs: 1,
        maxTokens: 8,
        n: 2,
        untrained: false,
      });
      return { sent: [...backend.temperatures], result };
    } finally {
      await backend.dispose();
    }
  }

  it("samples at the preset's own temperature in every section, and the report says so", async () => {
    const own = trainedPresets["tiny-arith"].strategyTemperature;
    const { sent, result } = await run("tiny-arith");
    expect(sent).toEqual([own]);
    expect(result.settings.temperature).toBe(own);
    expect(strategiesMarkdown(result)).toContain(`temperature ${own};`);
  }, 120_000);

  it("samples a model named as anything else at the default", async () => {
    const { sent, result } = await run("some-other-model");
    expect(sent).toEqual([defaultStrategyTemperature]);
    expect(result.settings.temperature).toBe(defaultStrategyTemperature);
  }, 120_000);
});

describe("tessera models evaluate --task sorting", () => {
  it("samples at the strategy benchmark's temperature for the model when --temperature is not given", async () => {
    const own = trainedPresets["tiny-arith"].strategyTemperature;
    const result = await runCli(
      ["models", "evaluate", "tiny-arith", "--task", "sorting", "--problems", "8"],
      {
        timeoutMs: 120_000,
      },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`temperature ${own}, one sample each`);
  }, 120_000);
});
