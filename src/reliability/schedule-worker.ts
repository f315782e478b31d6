// The Worker thread of a worker-terminate case: loads the addon and the model (reporting progress),
// creates a context and generates on one or more sequences until the parent terminates it, posting
// a message per progress call and per token so the parent can pick its moment.
import { parentPort, workerData } from "node:worker_threads";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { paceConsumer } from "./schedule-consumer.js";
import type { WorkerTerminateCase } from "./schedule-plan.js";
import { SeededRandom } from "./seeded-random.js";

export interface ScheduleWorkerData {
  readonly modelPath: string;
  readonly plan: WorkerTerminateCase;
  readonly seed: number;
}

export type ScheduleWorkerMessage = { readonly type: "progress" | "loaded" | "context" | "token" };

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new TypeError("schedule-worker.js runs as a Worker thread only");
  const { modelPath, plan, seed } = workerData as ScheduleWorkerData;
  const post = (type: ScheduleWorkerMessage["type"]) => port.postMessage({ type });
  const model = await loadLlamaModel(modelPath, { onProgress: () => post("progress") });
  post("loaded");
  const context = await model.createContext({
    contextSize: 512,
    batchSize: 64,
    threads: 1,
    sequences: plan.streams,
  });
  post("context");
  const prompt = model.tokenize("The worker thread keeps generating until it is terminated.");
  const random = new SeededRandom(seed);
  // Generate until terminated; each stream starts over when it reaches its length.
  await Promise.all(
    Array.from({ length: plan.streams }, async (_, index) => {
      for (let round = 0; ; round++) {
        const stream = context.generate(prompt, {
          maxTokens: 300,
          ignoreEos: true,
          temperature: 0.8,
          seed: seed + index + round,
          queueCapacity: plan.queueCapacity,
        });
        for await (const _ of stream) {
          post("token");
          await paceConsumer(plan.consumer, random);
        }
      }
    }),
  );
}

await main();
