// A streams case: one or more contexts (of the shared model or one of its own), several streams at
// once on them, each read by its own kind of consumer and stopped its own way at its own moment:
// cancel(), `break`, its AbortSignal, or disposing its context or the whole model.
import { setTimeout as sleep } from "node:timers/promises";
import type { LlamaContext } from "../backends/llamacpp/llama-context.js";
import { type LlamaModel, loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import type { TokenBatch, TokenEvent, TokenStream } from "../backends/llamacpp/token-stream.js";
import { type CaseTools, settleExpected } from "./schedule-case-tools.js";
import { paceConsumer } from "./schedule-consumer.js";
import type { StreamPlan, StreamsCase } from "./schedule-plan.js";
import { SeededRandom } from "./seeded-random.js";

// The tiny model decodes a token in well under 1 ms; this leaves a full queue behind a paused reader.
const fullQueueWaitMs = (capacity: number) => 3 + capacity;

async function readStream(
  tools: CaseTools,
  plan: StreamPlan,
  stream: TokenStream,
  stopNow: () => void,
): Promise<void> {
  const random = new SeededRandom(plan.seed);
  const { stop } = plan;
  const iterator: AsyncIterator<TokenBatch | TokenEvent, void> = plan.byBatches
    ? stream.batches()
    : stream[Symbol.asyncIterator]();
  // Named once per stream: a hang report says which queue was waited on.
  const event = `token (stream of ${plan.maxTokens}, queue ${plan.queueCapacity}, ${plan.consumer.kind} consumer)`;
  let read = 0;
  let stopped = stop.kind === "none" || stop.moment === "prefill";
  while (true) {
    const next = await tools.watchdog.due(
      event,
      iterator.next(),
      undefined,
      () => stream.cancel(),
      () => stream.queued,
    );
    if (next.done === true) break;
    read += "events" in next.value ? next.value.events.length : 1;
    if (!stopped && read >= stop.afterTokens) {
      stopped = true;
      if (stop.moment === "full-queue") await sleep(fullQueueWaitMs(plan.queueCapacity));
      if (stop.kind === "break") {
        await tools.watchdog.due("end of a stream left by break", iterator.return!(undefined));
        break;
      }
      stopNow();
    }
    await paceConsumer(plan.consumer, random);
  }
}

async function runStream(
  tools: CaseTools,
  plan: StreamPlan,
  context: LlamaContext,
  model: LlamaModel,
): Promise<void> {
  const controller = new AbortController();
  const stopNow = () => {
    switch (plan.stop.kind) {
      case "cancel":
        return stream.cancel();
      case "signal":
        return controller.abort();
      case "dispose-context":
        return context.dispose();
      case "dispose-model":
        return model.dispose();
      default:
        return;
    }
  };
  const stream = context.generate(tools.resources.promptPool.subarray(0, plan.promptTokens), {
    maxTokens: plan.maxTokens,
    queueCapacity: plan.queueCapacity,
    temperature: plan.temperature,
    seed: plan.seed,
    ignoreEos: true,
    signal: controller.signal,
  });
  if (plan.stop.moment === "prefill" && plan.stop.kind !== "none") {
    // `break` needs a token to break from; at prefill it breaks at the first one.
    const early = plan.stop.kind === "break" ? () => stream.cancel() : stopNow;
    if (plan.stop.delayMs === 0) queueMicrotask(early);
    else setTimeout(early, plan.stop.delayMs);
  }
  await settleExpected(tools, "reading a stream", readStream(tools, plan, stream, stopNow));
  await settleExpected(tools, "a stream's result", tools.watchdog.due("stream result", stream.result));
}

export async function runStreamsCase(tools: CaseTools, plan: StreamsCase): Promise<void> {
  const { resources, watchdog } = tools;
  const model = plan.ownModel
    ? await watchdog.due("model load", loadLlamaModel(resources.modelPath))
    : resources.model;
  const contexts: LlamaContext[] = [];
  try {
    for (const context of plan.contexts) {
      contexts.push(await watchdog.due("createContext", model.createContext({ ...context, threads: 1 })));
    }
    await Promise.all(
      plan.streams.map((stream) =>
        settleExpected(
          tools,
          "starting a stream",
          runStream(tools, stream, contexts[stream.context]!, model),
        ),
      ),
    );
  } finally {
    for (const context of contexts) context.dispose();
    if (plan.ownModel) model.dispose();
  }
}
