// Runs one memory-sensitive reliability stage in a process of its own (`node stage-child.js <stage>
// <options as JSON>`), printing its figures as JSON. A fresh process per stage keeps one stage's
// garbage out of the next one's memory figures, and lets the parent see how the process ended: a
// native crash while the process exits still counts.
import { runCancellationSoak } from "./cancellation-soak.js";
import { runDisconnectStorm } from "./serve-disconnect-storm.js";
import { runStalledConsumer } from "./stalled-consumer.js";

async function main(): Promise<void> {
  const [stage, optionsText = "{}"] = process.argv.slice(2);
  const options = JSON.parse(optionsText);
  const figures =
    stage === "soak"
      ? await runCancellationSoak(options)
      : stage === "stall"
        ? await runStalledConsumer(options)
        : stage === "storm"
          ? await runDisconnectStorm(options)
          : undefined;
  if (figures === undefined) throw new TypeError(`unknown stage "${stage}": soak, stall or storm`);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 70;
});
