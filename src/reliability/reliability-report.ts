// Runs the reliability suite the CLI offers (model fuzz, cancellation soak, stalled consumer,
// disconnect storm) and renders its figures as text lines; the JSON form is the figures themselves.
import type { CancellationSoakFigures } from "./cancellation-soak.js";
import { type ModelFuzzFigures, runModelFuzz } from "./model-fuzz-runner.js";
import { type OptionFuzzFigures, runOptionFuzz } from "./option-fuzz.js";
import { formatOptionFuzz, optionFuzzPassed } from "./option-fuzz-report.js";
import { runScheduleFuzz, type ScheduleFuzzFigures } from "./schedule-fuzz-runner.js";
import type { DisconnectStormFigures } from "./serve-disconnect-storm.js";
import { type ProcessExit, runStageInChild } from "./stage-runner.js";
import type { StalledConsumerFigures } from "./stalled-consumer.js";

export interface ReliabilityRunOptions {
  readonly fuzzCases: number;
  readonly cancellations: number;
  readonly stallSeconds: number;
  readonly stormClients: number;
  /** Schedule-fuzz cases (0 = skip the stage). */
  readonly schedules?: number;
  /** First schedule case (replays case i alone with schedules 1). Default 0. */
  readonly firstSchedule?: number;
  /** Option-fuzz cases (0 = skip the stage). */
  readonly optionCases?: number;
  /** First option case (replays case i alone with optionCases 1). Default 0. */
  readonly firstOptionCase?: number;
  readonly runSeed?: number;
  readonly keepFailuresIn?: string;
  readonly onStage?: (stage: string) => void;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface ReliabilityFigures {
  readonly date: string;
  readonly fuzz: ModelFuzzFigures | null;
  readonly cancellation: CancellationSoakFigures | null;
  readonly stall: StalledConsumerFigures | null;
  readonly storm: DisconnectStormFigures | null;
  readonly schedules: ScheduleFuzzFigures | null;
  /** Random native options (createContext, generate, loadLlamaModel); absent in older figures. */
  readonly options?: OptionFuzzFigures | null;
  /** How the process of each soak, stall and storm stage ended (a crash at exit counts too). */
  readonly stageExits: Readonly<Record<string, ProcessExit>>;
}

export async function runReliability(options: ReliabilityRunOptions): Promise<ReliabilityFigures> {
  const runSeed = options.runSeed ?? 1;
  const progress = options.onProgress === undefined ? {} : { onProgress: options.onProgress };
  // Each of these stages runs in a process of its own: memory figures untouched by the others, and
  // a native crash, even one while the process exits, is seen in its exit status.
  const stageExits: Record<string, ProcessExit> = {};
  const stage = async <Figures>(
    name: "soak" | "stall" | "storm",
    stageOptions: object,
  ): Promise<Figures | null> => {
    const outcome = await runStageInChild<Figures>(name, stageOptions);
    stageExits[name] = outcome.exit;
    return outcome.figures;
  };
  options.onStage?.(`cancellation soak: ${options.cancellations} cancelled generations`);
  const cancellation =
    options.cancellations > 0
      ? await stage<CancellationSoakFigures>("soak", { cancellations: options.cancellations, runSeed })
      : null;
  options.onStage?.(`stalled consumer: ${options.stallSeconds} s`);
  const stall =
    options.stallSeconds > 0
      ? await stage<StalledConsumerFigures>("stall", { seconds: options.stallSeconds })
      : null;
  options.onStage?.(`disconnect storm: ${options.stormClients} concurrent clients`);
  const storm =
    options.stormClients > 0
      ? await stage<DisconnectStormFigures>("storm", { clients: options.stormClients, runSeed })
      : null;
  const scheduleCases = options.schedules ?? 0;
  options.onStage?.(`schedule fuzz: ${scheduleCases} cases`);
  const schedules =
    scheduleCases > 0
      ? await runScheduleFuzz({
          cases: scheduleCases,
          runSeed,
          ...(options.firstSchedule !== undefined && { firstCase: options.firstSchedule }),
          ...progress,
        })
      : null;
  const optionCases = options.optionCases ?? 0;
  options.onStage?.(`option fuzz: ${optionCases} random option combinations`);
  const optionFigures =
    optionCases > 0
      ? await runOptionFuzz({
          cases: optionCases,
          runSeed,
          ...(options.firstOptionCase !== undefined && { firstCase: options.firstOptionCase }),
          ...progress,
        })
      : null;
  options.onStage?.(`model fuzz: ${options.fuzzCases} mutated GGUF files`);
  const fuzz =
    options.fuzzCases > 0
      ? await runModelFuzz({
          cases: options.fuzzCases,
          runSeed,
          ...progress,
          ...(options.keepFailuresIn !== undefined && { keepFailuresIn: options.keepFailuresIn }),
        })
      : null;
  return {
    date: new Date().toISOString(),
    fuzz,
    cancellation,
    stall,
    storm,
    schedules,
    options: optionFigures,
    stageExits,
  };
}

const mebibytes = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;
const seconds = (milliseconds: number): string => `${(milliseconds / 1000).toFixed(1)} s`;

/** True when every figure meets its target (0 crashes, hangs, leaks; memory within 5%). */
export function reliabilityPassed(figures: ReliabilityFigures): boolean {
  const { fuzz, cancellation, stall, storm } = figures;
  const exitsOk = Object.values(figures.stageExits).every((exit) => exit.exitCode === 0);
  const fuzzOk =
    fuzz === null ||
    (fuzz.reader.untyped === 0 &&
      fuzz.reader.hangs === 0 &&
      fuzz.reader.crashes === 0 &&
      (fuzz.native === null ||
        (fuzz.native.untyped === 0 &&
          // The child runs the real loader, whose own check is what stands before llama.cpp: a crash
          // that the separate pre-load validation would have prevented still crashes `tessera run`.
          fuzz.native.crashes + fuzz.native.hangs === 0)));
  const soakOk =
    cancellation === null ||
    (cancellation.untypedErrors === 0 &&
      Math.abs(cancellation.rssChangePercent) <= 5 &&
      cancellation.threadsEnd <= cancellation.threadsAfterWarmup &&
      cancellation.runningGenerationsEnd === 0 &&
      cancellation.serverActiveEnd === 0 &&
      cancellation.stillGeneratesCorrectly);
  const stallOk =
    stall === null ||
    (stall.rssChangePercent <= 5 &&
      stall.rssMaximumBytes <= stall.rssStartBytes * 1.05 &&
      stall.tokensDecodedWhileStalled === 0 &&
      stall.resumedToTheEnd);
  const stormOk =
    storm === null ||
    (storm.untypedFailures === 0 &&
      storm.activeEnd === 0 &&
      storm.runningGenerationsEnd === 0 &&
      storm.healthyAfterwards);
  return (
    exitsOk &&
    fuzzOk &&
    soakOk &&
    stallOk &&
    stormOk &&
    schedulesPassed(figures.schedules) &&
    optionFuzzPassed(figures.options)
  );
}

/** 0 hangs, 0 crashes, 0 leaked threads, 0 untyped errors. */
export function schedulesPassed(schedules: ScheduleFuzzFigures | null): boolean {
  return (
    schedules === null ||
    (schedules.hangs === 0 &&
      schedules.crashes === 0 &&
      schedules.leakedThreads === 0 &&
      schedules.unexpectedErrors === 0)
  );
}

export function formatReliability(figures: ReliabilityFigures): string[] {
  const lines = [`tessera reliability, ${figures.date}`];
  const { fuzz, cancellation, stall, storm } = figures;
  if (fuzz !== null) {
    lines.push(
      `model fuzz: ${fuzz.cases} files (seed ${fuzz.runSeed}) in ${seconds(fuzz.durationMs)}; families ${JSON.stringify(fuzz.byFamily)}`,
      `  reader: ${fuzz.reader.accepted} accepted, ${fuzz.reader.rejected} typed rejections, ${fuzz.reader.untyped} untyped, ${fuzz.reader.hangs} hangs, ${fuzz.reader.crashes} out-of-memory`,
    );
    if (fuzz.native !== null) {
      const native = fuzz.native;
      lines.push(
        `  native load (child process): ${native.generated} loaded and generated, ${native.rejected} typed rejections, ${native.untyped} untyped, ${native.crashes} crashes, ${native.hangs} hangs (${native.preventedByValidation} of those prevented by the pre-load validation)`,
      );
    }
    for (const failure of fuzz.failures.slice(0, 20)) {
      lines.push(
        `  ! case ${failure.index} (${failure.seedName}, ${failure.description}): ${failure.where} ${failure.outcome}${failure.preventedByValidation ? " [prevented by pre-load validation]" : ""}: ${failure.detail}`,
      );
    }
  }
  if (cancellation !== null) {
    const soak = cancellation;
    lines.push(
      `cancellation soak: ${soak.cancellations} cancellations ${JSON.stringify(soak.byKind)} in ${seconds(soak.durationMs)}`,
      `  ${soak.aborted} aborted, ${soak.finishedFirst} finished before the abort, ${soak.typedErrors} other typed errors, ${soak.untypedErrors} untyped`,
      `  RSS ${mebibytes(soak.rssAfterWarmupBytes)} after warm-up -> ${mebibytes(soak.rssEndBytes)} (${soak.rssChangePercent.toFixed(2)}%); checkpoints ${soak.rssCheckpointsBytes.map((bytes) => (bytes / 1048576).toFixed(0)).join(" ")} MiB; threads ${soak.threadsAfterWarmup} -> ${soak.threadsEnd}; idle CPU ${soak.idleCpuMsPerSecond.toFixed(1)} ms/s; running ${soak.runningGenerationsEnd}; server slots held ${soak.serverActiveEnd}; still correct: ${soak.stillGeneratesCorrectly}`,
    );
    for (const sample of soak.errorSamples) lines.push(`  ! ${sample}`);
  }
  if (stall !== null) {
    lines.push(
      `stalled consumer: ${stall.seconds} s unread; ${stall.tokensDecodedWhileStalled} tokens decoded meanwhile; RSS ${mebibytes(stall.rssStartBytes)} -> ${mebibytes(stall.rssEndBytes)} (${stall.rssChangePercent.toFixed(2)}%, max ${mebibytes(stall.rssMaximumBytes)}); CPU ${stall.cpuMsPerSecond.toFixed(1)} ms/s; threads ${stall.threadsStart} -> ${stall.threadsEnd}; resumed to the end: ${stall.resumedToTheEnd}`,
    );
  }
  if (storm !== null) {
    lines.push(
      `disconnect storm: ${storm.clients} concurrent clients in ${seconds(storm.durationMs)}: ${storm.completed} completed, ${storm.disconnected} disconnected on purpose, ${storm.typedErrors} typed errors (statuses ${JSON.stringify(storm.statuses)}), ${storm.untypedFailures} untyped; afterwards ${storm.activeEnd} slots held, ${storm.queuedEnd} queued, ${storm.runningGenerationsEnd} running, healthy: ${storm.healthyAfterwards}`,
    );
    for (const sample of storm.failureSamples) lines.push(`  ! ${sample}`);
  }
  if (figures.schedules !== null) lines.push(...formatSchedules(figures.schedules));
  if (figures.options) lines.push(...formatOptionFuzz(figures.options));
  for (const [name, exit] of Object.entries(figures.stageExits)) {
    if (exit.exitCode === 0) continue;
    lines.push(
      `  ! the ${name} process ended with exit code ${exit.exitCode}, signal ${exit.signal}: ${exit.stderrTail.split("\n").slice(-2).join(" | ")}`,
    );
  }
  lines.push(reliabilityPassed(figures) ? "result: PASS" : "result: FAIL");
  return lines;
}

function formatSchedules(schedules: ScheduleFuzzFigures): string[] {
  const caseList = (cases: readonly number[]) =>
    cases.length === 0 ? "" : ` (cases ${cases.slice(0, 20).join(", ")}${cases.length > 20 ? ", …" : ""})`;
  const lines = [
    `schedule fuzz: ${schedules.cases} cases from ${schedules.firstCase} (seed ${schedules.runSeed}) ${JSON.stringify(schedules.byKind)} in ${seconds(schedules.durationMs)}, ${schedules.childrenStarted} child processes, ${schedules.dueEvents} due events watched`,
    `  ${schedules.hangs} hangs${caseList(schedules.hangCases)}, ${schedules.crashes} crashes${caseList(schedules.crashCases)}, ${schedules.leakedThreads} leaked threads${caseList(schedules.leakCases)}, ${schedules.unexpectedErrors} untyped errors${caseList(schedules.unexpectedErrorCases)}`,
    `  RSS growth per child at most ${mebibytes(schedules.rssGrowthMaximumBytes)} (${schedules.rssGrowthMaximumPercent.toFixed(1)}%); threads at rest ${schedules.threadsBaseline}`,
  ];
  for (const failure of schedules.failures.slice(0, 20)) {
    const replay =
      failure.replay === "not replayed"
        ? "not replayed"
        : `replayed alone: ${failure.replay.recurred}/${failure.replay.tries}`;
    lines.push(
      `  ! case ${failure.index} (${failure.kind}) ${failure.outcome} [${replay}]: ${failure.detail}`,
    );
  }
  return lines;
}
