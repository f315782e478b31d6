// The sampling strategies on the local backend: for each task and strategy the success rate, samples drawn,
// tokens generated and wall time (median and p90); then best-of-n as one batch of parallel sequences
// against the same n samples drawn one after another and against a single sample; then the pooled
// strategies with and without streaming validation, batched and sequential (strategies-streaming.ts).

import { resolve } from "node:path";
import type { Backend } from "../core/backend.js";
import { CBlock } from "../core/cblock.js";
import type { ModelOptions } from "../core/model-options.js";
import type { SamplingStrategy } from "../core/sampling-strategy.js";
import {
  isTrainedPresetName,
  type TrainedPreset,
  trainedPresetNames,
  trainedPresetPath,
  trainedPresets,
} from "../gguf/trained-presets.js";
import { Instruction } from "../stdlib/components/instruction.js";
import { ChatContext } from "../stdlib/contexts/chat-context.js";
import { SimpleContext } from "../stdlib/contexts/simple-context.js";
import { act } from "../stdlib/functional/act.js";
import { check, req } from "../stdlib/requirements/requirement-helpers.js";
import { simpleValidate } from "../stdlib/requirements/simple-validate.js";
import { BestOfNStrategy } from "../stdlib/sampling/best-of-n-strategy.js";
import { MajorityVotingStrategy } from "../stdlib/sampling/majority-voting-strategy.js";
import { MultiTurnStrategy } from "../stdlib/sampling/multi-turn-strategy.js";
import { RejectionSamplingStrategy } from "../stdlib/sampling/rejection-sampling-strategy.js";
import { RepairTemplateStrategy } from "../stdlib/sampling/repair-template-strategy.js";
import { type MachineInfo, machineInfo } from "./machine-info.js";
import { type SampleSummary, summarize } from "./stats.js";
import type { EngineCounters } from "./strategies-streaming.js";
import { runStreamingComparison, type StreamingRow, streamingRunCount } from "./strategies-streaming.js";
import type { StrategyTask } from "./strategy-tasks.js";

export interface StrategiesOptions {
  backend: Backend;
  model: string;
  threads: number;
  tasks: ReadonlyArray<StrategyTask>;
  runs: number;
  maxTokens: number;
  /** n of best-of-n and majority voting. */
  n: number;
  /** Sampling temperature of every strategy (default: strategyTemperatureFor(model)). */
  temperature?: number;
  /** Whether the model's weights are random (an untrained preset): the report then says its success rates are noise. */
  untrained: boolean;
  /** The decode engine's counters, for the peak-live and decoded-token columns (local backend only). */
  engine?: EngineCounters;
  onProgress?: (progress: { done: number; total: number; label: string }) => void;
}

export interface StrategyRow {
  strategy: string;
  attempts: number;
  successRate: number;
  errors: number;
  samples: SampleSummary;
  tokens: SampleSummary;
  wallMs: SampleSummary;
}

export interface BatchingRow {
  mode: string;
  wallMs: SampleSummary;
  /** Median wall time relative to one sample. */
  timesOneSample: number | null;
}

export interface StrategiesResult {
  benchmark: "strategies";
  createdAt: string;
  machine: MachineInfo;
  model: string;
  settings: {
    threads: number;
    tasks: string[];
    runs: number;
    maxTokens: number;
    n: number;
    /** Absent from results written before it was recorded: those sampled at 0.9. */
    temperature?: number;
  };
  /** True when the model has random weights: success rates are noise, costs and latencies are real. */
  untrained: boolean;
  rows: StrategyRow[];
  batching: BatchingRow[];
  /** Pooled strategies with and without streaming validation, batched and sequential (paired seeds). */
  streaming: StreamingRow[];
}

interface StrategyCase {
  name: string;
  make: () => SamplingStrategy | null;
  context: () => SimpleContext | ChatContext;
}

function strategyCases(n: number): StrategyCase[] {
  const simple = () => new SimpleContext();
  return [
    { name: "single sample", make: () => null, context: simple },
    { name: "rejection ×4", make: () => new RejectionSamplingStrategy({ loopBudget: 4 }), context: simple },
    {
      name: "repair template ×4",
      make: () => new RepairTemplateStrategy({ loopBudget: 4 }),
      context: simple,
    },
    {
      name: "multi-turn ×4",
      make: () => new MultiTurnStrategy({ loopBudget: 4 }),
      context: () => new ChatContext(),
    },
    { name: `best-of-${n} (logprob)`, make: () => new BestOfNStrategy({ n }), context: simple },
    { name: `majority vote ${n}`, make: () => new MajorityVotingStrategy({ n }), context: simple },
  ];
}

/** The strategy benchmark's sampling temperature for a model with no setting of its own. */
export const defaultStrategyTemperature = 0.9;

/**
 * The temperature the strategy benchmark samples a model with: a trained preset's own (named, or given as
 * its committed file), else the default. A model whose single sample is nearly always right (tiny-arith at
 * 0.9) leaves a vote nothing to fix; its preset records a temperature at which the strategies differ.
 */
export function strategyTemperatureFor(model: string): number {
  const name = isTrainedPresetName(model)
    ? model
    : trainedPresetNames.find((preset) => trainedPresetPath(preset) === resolve(model));
  const preset: TrainedPreset | undefined = name === undefined ? undefined : trainedPresets[name];
  return preset?.strategyTemperature ?? defaultStrategyTemperature;
}

const completionTokens = (
  thunks: ReadonlyArray<{ generation: { usage: { completionTokens: number } | null } }>,
) => thunks.reduce((sum, thunk) => sum + (thunk.generation.usage?.completionTokens ?? 0), 0);

export async function runStrategiesBenchmark(options: StrategiesOptions): Promise<StrategiesResult> {
  const { backend, n } = options;
  const temperature = options.temperature ?? strategyTemperatureFor(options.model);
  const modelOptions: ModelOptions = { maxNewTokens: options.maxTokens, temperature };
  const cases = strategyCases(n);
  const total =
    cases.length * options.tasks.length * options.runs +
    3 * options.runs +
    streamingRunCount(options.tasks.length, options.runs);
  let done = 0;
  const tick = (label: string) => options.onProgress?.({ done: ++done, total, label });
  await act("warm up", new SimpleContext(), backend, { modelOptions });

  const rows: StrategyRow[] = [];
  for (const strategyCase of cases) {
    let successes = 0;
    let errors = 0;
    const samples: number[] = [];
    const tokens: number[] = [];
    const wallMs: number[] = [];
    for (const task of options.tasks) {
      // A raw task's requirement is check-only, so the instruction renders as exactly the task's prompt.
      const requirement = (task.raw === true ? check : req)(task.requirement, simpleValidate(task.verify));
      const taskOptions: ModelOptions = {
        ...modelOptions,
        ...(task.stopSequences !== undefined && { stopSequences: task.stopSequences }),
      };
      for (let run = 0; run < options.runs; run++) {
        const instruction = new Instruction({ description: task.prompt, requirements: [requirement] });
        const strategy = strategyCase.make();
        const started = performance.now();
        try {
          if (strategy === null) {
            const { output } = await act(instruction, strategyCase.context(), backend, {
              modelOptions: taskOptions,
            });
            samples.push(1);
            tokens.push(completionTokens([output]));
            if (task.verify(output.value ?? "")) successes++;
          } else {
            const result = await strategy.sample(
              instruction,
              strategyCase.context(),
              backend,
              [requirement],
              { modelOptions: taskOptions },
            );
            samples.push(result.sampleGenerations.length);
            tokens.push(completionTokens(result.sampleGenerations));
            if (result.success) successes++;
          }
          wallMs.push(performance.now() - started);
        } catch {
          errors++;
        }
        tick(`${strategyCase.name} · ${task.id}`);
      }
    }
    const attempts = options.tasks.length * options.runs;
    rows.push({
      strategy: strategyCase.name,
      attempts,
      successRate: successes / attempts,
      errors,
      samples: summarize(samples),
      tokens: summarize(tokens),
      wallMs: summarize(wallMs),
    });
  }

  // Batched against sequential best-of-n: n samples of one prompt at a fixed length, top-1 logprobs in
  // every mode (best-of-n scores with them), so all modes do the same work per token.
  const fixed = { ...modelOptions, ignoreEos: true, logits: 1 } as ModelOptions;
  const prompt = new CBlock(options.tasks[0]!.prompt);
  const timings = { one: [] as number[], batched: [] as number[], sequential: [] as number[] };
  for (let run = 0; run < options.runs; run++) {
    let started = performance.now();
    await act(prompt, new SimpleContext(), backend, { modelOptions: fixed });
    timings.one.push(performance.now() - started);
    tick("one sample");
    started = performance.now();
    await new BestOfNStrategy({ n }).sample(prompt, new SimpleContext(), backend, null, {
      modelOptions: fixed,
    });
    timings.batched.push(performance.now() - started);
    tick(`best-of-${n} batched`);
    started = performance.now();
    for (let sample = 0; sample < n; sample++)
      await act(prompt, new SimpleContext(), backend, { modelOptions: fixed });
    timings.sequential.push(performance.now() - started);
    tick(`best-of-${n} sequential`);
  }
  const streaming = await runStreamingComparison({
    backend,
    tasks: options.tasks,
    runs: options.runs,
    maxTokens: options.maxTokens,
    n,
    temperature,
    ...(options.engine === undefined ? {} : { engine: options.engine }),
    tick,
  });
  const one = summarize(timings.one);
  const batchingRow = (mode: string, values: number[]): BatchingRow => {
    const wallMs = summarize(values);
    return {
      mode,
      wallMs,
      timesOneSample: wallMs.median !== null && one.median ? wallMs.median / one.median : null,
    };
  };
  return {
    benchmark: "strategies",
    createdAt: new Date().toISOString(),
    machine: machineInfo(),
    model: options.model,
    untrained: options.untrained,
    settings: {
      threads: options.threads,
      tasks: options.tasks.map((task) => task.id),
      runs: options.runs,
      maxTokens: options.maxTokens,
      n,
      temperature,
    },
    rows,
    batching: [
      batchingRow("one sample", timings.one),
      batchingRow(`best-of-${n} batched (parallel sequences)`, timings.batched),
      batchingRow(`best-of-${n} sequential`, timings.sequential),
    ],
    streaming,
  };
}
