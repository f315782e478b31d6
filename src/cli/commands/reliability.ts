// `tessera reliability`: fuzzed models, cancellation soak, stalled consumer and a disconnect storm
// against `tessera serve`, printing the figures (docs/reliability.md). Exit code 1 when a
// target is missed, so CI can run a reduced version.
import { type Command, InvalidArgumentError } from "commander";
import {
  formatReliability,
  reliabilityPassed,
  runReliability,
} from "../../reliability/reliability-report.js";
import { delayedProgressBar } from "../progress-bar.js";

function count(text: string): number {
  const value = Number(text);
  // Number("") is 0: an empty budget would silently switch a stage off.
  if (text.trim() === "" || !Number.isInteger(value) || value < 0)
    throw new InvalidArgumentError("Expected a non-negative integer.");
  return value;
}

interface ReliabilityOptions {
  fuzz: number;
  cancellations: number;
  stallSeconds: number;
  clients: number;
  schedules: number;
  scheduleCase?: number;
  scheduleFrom: number;
  options: number;
  optionCase?: number;
  seed: number;
  keepFailures?: string;
  json?: boolean;
}

export function registerReliabilityCommand(program: Command): void {
  program
    .command("reliability")
    .description(
      "fuzz model files, soak cancellations, stall a stream, storm `tessera serve`; print the figures",
    )
    .option("--fuzz <n>", "mutated GGUF files to load", count, 10_000)
    .option("--cancellations <n>", "generations to cancel at random moments", count, 1000)
    .option("--stall-seconds <s>", "seconds a stream is left unread", count, 60)
    .option("--clients <n>", "concurrent clients against tessera serve", count, 100)
    .option(
      "--schedules <n>",
      "schedule-fuzz cases (random consumers, stops, disposals, workers)",
      count,
      10_000,
    )
    .option("--schedule-from <i>", "first schedule-fuzz case (a long run in parts)", count, 0)
    .option("--schedule-case <i>", "run schedule-fuzz case i alone (replays a failure)", count)
    .option(
      "--options <n>",
      "option-fuzz cases (random createContext/generate/loadLlamaModel options)",
      count,
      2000,
    )
    .option("--option-case <i>", "run option-fuzz case i alone (replays a crash)", count)
    .option("--seed <n>", "run seed (same seed, same cases)", count, 1)
    .option("--keep-failures <dir>", "copy files that crashed or hung into this folder")
    .option("--json", "print the figures as JSON")
    .action(async (options: ReliabilityOptions, command: Command) => {
      // Replaying one case (--schedule-case, --option-case) runs only that case, unless another stage's
      // budget was given on the command line: the defaults would otherwise add the whole full run.
      const replaying = options.scheduleCase !== undefined || options.optionCase !== undefined;
      const budget = (name: keyof ReliabilityOptions & string, value: number) =>
        replaying && command.getOptionValueSource(name) === "default" ? 0 : value;
      // One bar per stage, from its first update (delay 0); a stage's name line replaces the last bar.
      const bar = delayedProgressBar(" {bar} {value}/{total} {stage}", { delayMs: 0 });
      let stage = "";
      const figures = await runReliability({
        fuzzCases: budget("fuzz", options.fuzz),
        cancellations: budget("cancellations", options.cancellations),
        stallSeconds: budget("stallSeconds", options.stallSeconds),
        stormClients: budget("clients", options.clients),
        schedules: options.scheduleCase !== undefined ? 1 : budget("schedules", options.schedules),
        firstSchedule: options.scheduleCase ?? options.scheduleFrom,
        optionCases: options.optionCase !== undefined ? 1 : budget("options", options.options),
        ...(options.optionCase !== undefined && { firstOptionCase: options.optionCase }),
        runSeed: options.seed,
        ...(options.keepFailures !== undefined && { keepFailuresIn: options.keepFailures }),
        onStage: (next) => {
          bar.stop();
          stage = next;
          process.stderr.write(`${next}\n`);
        },
        onProgress: (done, total) => bar.update(done, total, { stage }),
      });
      bar.stop();
      process.stdout.write(
        options.json === true
          ? `${JSON.stringify(figures, null, 2)}\n`
          : `${formatReliability(figures).join("\n")}\n`,
      );
      if (!reliabilityPassed(figures)) process.exitCode = 1;
    });
}
