// A process-exit case: a process of its own (this script again, in "exit" mode) starts streams and
// calls process.exit(code) after some tokens, with decoding still running. It must end with exactly
// that code, within the watchdog's limit, and by no signal.
import { spawn } from "node:child_process";
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import type { CaseTools } from "./schedule-case-tools.js";
import { paceConsumer } from "./schedule-consumer.js";
import type { ProcessExitCase } from "./schedule-plan.js";
import { SeededRandom } from "./seeded-random.js";

const processStartLimitMs = 30_000;

export async function runProcessExitCase(
  tools: CaseTools,
  plan: ProcessExitCase,
  seed: number,
): Promise<void> {
  const { resources, watchdog } = tools;
  const child = spawn(
    process.execPath,
    [resources.childScript, "exit", JSON.stringify({ modelPath: resources.modelPath, plan, seed })],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, GGML_NO_BACKTRACE: "1" } },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  const exiting = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line === "exiting") resolve();
    });
    void exited.then(() => resolve());
  });
  try {
    await watchdog.due("a process reaching process.exit()", exiting, processStartLimitMs);
    const { code, signal } = await watchdog.due("the process's exit after process.exit()", exited);
    if (signal !== null || code !== plan.exitCode) {
      const tail = stderr.trim().split("\n").slice(-3).join(" | ");
      tools.crashed(`process.exit(${plan.exitCode}) ended with code ${code}, signal ${signal}: ${tail}`);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

/** The "exit" mode of the child script: streams running, then process.exit(code) mid-stream. */
export async function exitMidStream(modelPath: string, plan: ProcessExitCase, seed: number): Promise<never> {
  const model = await loadLlamaModel(modelPath);
  const context = await model.createContext({
    contextSize: 512,
    batchSize: 64,
    threads: 1,
    sequences: plan.streams,
  });
  const prompt = model.tokenize("A process that exits while it is still generating.");
  const random = new SeededRandom(seed);
  let read = 0;
  const reachedMoment = new Promise<void>((resolve) => {
    for (let index = 0; index < plan.streams; index++) {
      void (async () => {
        const stream = context.generate(prompt, {
          maxTokens: 400,
          ignoreEos: true,
          temperature: 0.8,
          seed: seed + index,
          queueCapacity: plan.queueCapacity,
        });
        for await (const _ of stream) {
          if (++read >= plan.afterTokens) resolve();
          await paceConsumer(plan.consumer, random);
        }
      })();
    }
  });
  await reachedMoment;
  writeSync(1, "exiting\n");
  process.exit(plan.exitCode);
}
