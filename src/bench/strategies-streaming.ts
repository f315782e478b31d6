// Streaming validation in the strategy benchmark: each pooled strategy with and without streaming checks
// (paired runs: the same seeds, so the same samples in the same order) and batched (parallel sequences of
// one context) against sequential (one live sample). Token counts are the native side's per-generation
// counts (GenerateLog.modelOutput.generatedTokens); peak live sequences and decoded tokens come from the
// decode engine's own counters (LlamaContext.counters), not from the strategy's bookkeeping.
import type { Backend } from "../core/backend.js";
import type { ModelOptions } from "../core/model-options.js";
import { PartialValidationResult } from "../core/requirement.js";
import type { SamplingResult } from "../core/sampling-result.js";
import { Instruction } from "../stdlib/components/instruction.js";
import { SimpleContext } from "../stdlib/contexts/simple-context.js";
import { simpleValidate } from "../stdlib/requirements/simple-validate.js";
import { StandardRequirement } from "../stdlib/requirements/standard-requirement.js";
import type { BaseSamplingStrategy } from "../stdlib/sampling/base-sampling-strategy.js";
import { BestOfNStrategy } from "../stdlib/sampling/best-of-n-strategy.js";
import { MajorityVotingStrategy } from "../stdlib/sampling/majority-voting-strategy.js";
import { RejectionSamplingStrategy } from "../stdlib/sampling/rejection-sampling-strategy.js";
import { type SampleSummary, summarize } from "./stats.js";
import type { StrategyTask } from "./strategy-tasks.js";

/** A task's early verdict: true when no continuation of `text` can pass verify(). Must be sound. */
export type EarlyFailure = (text: string) => boolean;

/** Early verdicts of the built-in tasks (a task file may export `failsEarly` on each task). */
export const defaultEarlyFailures: Readonly<Record<string, EarlyFailure>> = {
  // The first non-blank character decides.
  "starts-uppercase": (text) => /^\s*[^\s\p{Lu}]/u.test(text),
  // A character outside printable ASCII never leaves.
  "ascii-only": (text) => /[^\x20-\x7e\n]/.test(text),
  // A run of seven letters only grows.
  "short-words": (text) => /\p{L}{7}/u.test(text),
};

export interface StreamingRow {
  strategy: string;
  scheduling: "batched" | "sequential";
  /** Live samples allowed (1 when sequential). */
  concurrency: number;
  streaming: boolean;
  runs: number;
  successRate: number;
  /** Wall time of all runs divided by the runs that found a passing sample. */
  wallPerAcceptedMs: number | null;
  attemptsUntilPass: SampleSummary;
  attempts: number;
  cancelled: number;
  tokensGenerated: number;
  tokensDiscarded: number;
  /** Streaming rows: tokens the paired run without streaming validation generated on top of this one. */
  tokensSaved: number | null;
  firstTokenMs: SampleSummary;
  lastTokenMs: SampleSummary;
  /** Most generations holding a sequence at once (the decode engine's counter); null without one. */
  peakLive: number | null;
  /** Tokens the decode engine decoded (prompt and generated), from its counters; null without them. */
  decodedTokens: number | null;
  errors: number;
}

export interface StreamingComparisonOptions {
  backend: Backend;
  tasks: ReadonlyArray<StrategyTask>;
  runs: number;
  maxTokens: number;
  n: number;
  /** Sampling temperature (default 0.9, the strategy benchmark's default). */
  temperature?: number;
  /** The decode engine's counters (LlamaContext.counters and resetPeakCounter), when the backend is local. */
  engine?: EngineCounters;
  tick?: (label: string) => void;
}

export interface EngineCounters {
  counters(): {
    readonly peakLiveSequences: number;
    readonly promptTokensDecoded: number;
    readonly generatedTokensDecoded: number;
  };
  resetPeak(): void;
}

interface Kind {
  name: string;
  batchedConcurrency: number;
  make: (concurrency: number, streaming: boolean) => BaseSamplingStrategy;
}

function kinds(n: number): Kind[] {
  return [
    {
      name: "rejection ×4",
      batchedConcurrency: 4,
      // Four attempts in all: four live at once, or one after another.
      make: (concurrencyBudget, streamValidation) =>
        new RejectionSamplingStrategy({
          loopBudget: Math.ceil(4 / concurrencyBudget),
          concurrencyBudget,
          streamValidation,
          pooled: true,
        }),
    },
    {
      name: `best-of-${n} (logprob)`,
      batchedConcurrency: n,
      make: (concurrencyBudget, streamValidation) =>
        new BestOfNStrategy({ n, concurrencyBudget, streamValidation, pooled: true }),
    },
    {
      name: `majority vote ${n}`,
      batchedConcurrency: n,
      make: (concurrencyBudget, streamValidation) =>
        new MajorityVotingStrategy({ n, concurrencyBudget, streamValidation, pooled: true }),
    },
  ];
}

/** The streaming rows count: kinds × 2 schedulings × 2 (with and without streaming) × tasks × runs. */
export function streamingRunCount(tasks: number, runs: number): number {
  return 3 * 2 * 2 * tasks * runs;
}

function requirementOf(task: StrategyTask): StandardRequirement {
  const failsEarly =
    (task as StrategyTask & { failsEarly?: EarlyFailure }).failsEarly ?? defaultEarlyFailures[task.id];
  return new StandardRequirement(task.requirement, {
    validate: simpleValidate(task.verify),
    // A raw task's requirement is never shown: the instruction renders as exactly the task's prompt.
    checkOnly: task.raw === true,
    ...(failsEarly === undefined
      ? {}
      : {
          streamValidate: ({ text }) =>
            new PartialValidationResult(failsEarly(text) ? "fail" : "unknown", {
              reason: "cannot pass any more",
            }),
        }),
  });
}

interface Tally {
  successes: number;
  wallMs: number;
  attemptsUntilPass: number[];
  attempts: number;
  cancelled: number;
  tokensGenerated: number;
  tokensDiscarded: number;
  tokensSaved: number;
  firstTokenMs: number[];
  lastTokenMs: number[];
  peakLive: number | null;
  decodedTokens: number | null;
  errors: number;
}

const emptyTally = (): Tally => ({
  successes: 0,
  wallMs: 0,
  attemptsUntilPass: [],
  attempts: 0,
  cancelled: 0,
  tokensGenerated: 0,
  tokensDiscarded: 0,
  tokensSaved: 0,
  firstTokenMs: [],
  lastTokenMs: [],
  peakLive: null,
  decodedTokens: null,
  errors: 0,
});

export async function runStreamingComparison(options: StreamingComparisonOptions): Promise<StreamingRow[]> {
  const { backend } = options;
  const sequences = backend.capabilities.parallelSequences;
  const rows: StreamingRow[] = [];
  for (const kind of kinds(options.n)) {
    for (const scheduling of ["batched", "sequential"] as const) {
      const concurrency = scheduling === "batched" ? Math.min(kind.batchedConcurrency, sequences) : 1;
      const tallies = { off: emptyTally(), on: emptyTally() };
      for (const [taskIndex, task] of options.tasks.entries()) {
        const requirement = requirementOf(task);
        for (let run = 0; run < options.runs; run++) {
          // Paired: the same seed with and without streaming checks, so the same samples in the same order.
          const modelOptions: ModelOptions = {
            maxNewTokens: options.maxTokens,
            temperature: options.temperature ?? 0.9,
            seed: 7919 * (run + 1) + 101 * taskIndex,
            ...(task.stopSequences !== undefined && { stopSequences: task.stopSequences }),
          };
          let tokensOff: number | null = null;
          for (const streaming of [false, true]) {
            const tally = streaming ? tallies.on : tallies.off;
            const instruction = new Instruction({ description: task.prompt, requirements: [requirement] });
            const engine = options.engine;
            engine?.resetPeak();
            const before = engine?.counters();
            const started = performance.now();
            let result: SamplingResult<string> | null = null;
            try {
              result = await kind
                .make(concurrency, streaming)
                .sample(instruction, new SimpleContext(), backend, [requirement], { modelOptions });
            } catch {
              tally.errors++;
            }
            tally.wallMs += performance.now() - started;
            if (engine !== undefined && before !== undefined) {
              const after = engine.counters();
              tally.peakLive = Math.max(tally.peakLive ?? 0, after.peakLiveSequences);
              tally.decodedTokens =
                (tally.decodedTokens ?? 0) +
                after.promptTokensDecoded -
                before.promptTokensDecoded +
                after.generatedTokensDecoded -
                before.generatedTokensDecoded;
            }
            const report = result?.report ?? null;
            if (result !== null && report !== null) {
              if (result.success) tally.successes++;
              if (report.attemptsUntilPass !== null) tally.attemptsUntilPass.push(report.attemptsUntilPass);
              tally.attempts += report.attempts;
              tally.cancelled += report.cancelledByValidation + report.cancelledAsLosers + report.abandoned;
              tally.tokensGenerated += report.tokensGenerated;
              tally.tokensDiscarded += report.tokensDiscarded;
              for (const timing of report.sampleTimings) {
                if (timing.firstTokenMs !== null) tally.firstTokenMs.push(timing.firstTokenMs);
                if (timing.lastTokenMs !== null) tally.lastTokenMs.push(timing.lastTokenMs);
              }
              if (!streaming) tokensOff = report.tokensGenerated;
              else if (tokensOff !== null) tally.tokensSaved += tokensOff - report.tokensGenerated;
            }
            options.tick?.(
              `${kind.name} · ${scheduling} · ${streaming ? "streaming" : "final only"} · ${task.id}`,
            );
          }
        }
      }
      const runs = options.tasks.length * options.runs;
      for (const streaming of [false, true]) {
        const tally = streaming ? tallies.on : tallies.off;
        rows.push({
          strategy: kind.name,
          scheduling,
          concurrency,
          streaming,
          runs,
          successRate: tally.successes / runs,
          wallPerAcceptedMs: tally.successes === 0 ? null : tally.wallMs / tally.successes,
          attemptsUntilPass: summarize(tally.attemptsUntilPass),
          attempts: tally.attempts,
          cancelled: tally.cancelled,
          tokensGenerated: tally.tokensGenerated,
          tokensDiscarded: tally.tokensDiscarded,
          tokensSaved: streaming ? tally.tokensSaved : null,
          firstTokenMs: summarize(tally.firstTokenMs),
          lastTokenMs: summarize(tally.lastTokenMs),
          peakLive: tally.peakLive,
          decodedTokens: tally.decodedTokens,
          errors: tally.errors,
        });
      }
    }
  }
  return rows;
}
