// A raw-pull case: the addon's own API with no TypeScript wrapper in between, pull(n) on a small
// native queue (capacity 1–8, n up to the capacity), one or two generations on a context, stopped by
// abort() or by disposing the context or the model. Back-pressure wake-ups race most here.
import { setTimeout as sleep } from "node:timers/promises";
import type { NativeContext, NativeDecodeJob } from "../backends/llamacpp/addon-types.js";
import { loadNativeAddon } from "../backends/llamacpp/native-addon.js";
import { type CaseTools, settleExpected } from "./schedule-case-tools.js";
import { paceConsumer } from "./schedule-consumer.js";
import type { RawPullCase } from "./schedule-plan.js";
import { SeededRandom } from "./seeded-random.js";

type RawJobPlan = RawPullCase["generations"][number];

async function drain(
  tools: CaseTools,
  plan: RawJobPlan,
  job: NativeDecodeJob,
  seed: number,
  stopNow: () => void,
): Promise<void> {
  const random = new SeededRandom(seed);
  const { stop } = plan;
  // Named once per job: a hang report says which queue was waited on.
  const event = `token (raw pull(${plan.pullSize}) of ${plan.maxTokens}, queue ${plan.queueCapacity}, ${plan.consumer.kind} consumer)`;
  let read = 0;
  let stopped = stop.kind === "none" || stop.moment === "prefill";
  while (true) {
    const batch = await tools.watchdog.due(
      event,
      job.pull(plan.pullSize),
      undefined,
      () => job.abort(),
      () => {
        const stats = job.getStats();
        return stats.sequence < 0 && !stats.finished;
      },
    );
    read += batch.count;
    if (batch.done) return;
    if (!stopped && read >= stop.afterTokens) {
      stopped = true;
      if (stop.moment === "full-queue") await sleep(3 + plan.queueCapacity);
      stopNow();
    }
    await paceConsumer(plan.consumer, random);
  }
}

/**
 * The caller awaits one pull but keeps no reference to its job, and the collector runs (the
 * children start with --expose-gc): a handle collected while its pull waits must not take the promise
 * with it.
 */
async function pullFromDroppedHandle(
  tools: CaseTools,
  plan: RawJobPlan,
  context: NativeContext,
  seed: number,
): Promise<void> {
  const pull = context
    .generate({
      // The whole pool: a prefill long enough that the collector and the handle's finalizer run
      // before the first event does (the window in which a collected handle lost its pull).
      tokens: tools.resources.promptPool,
      greedy: false,
      seed,
      temperature: 0.8,
      maxTokens: plan.maxTokens,
      ignoreEos: true,
      promptLogprobs: false,
      reusePrefix: false,
      queueCapacity: plan.queueCapacity,
    })
    .pull(plan.pullSize);
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  // The handle is gone, so whether this generation still waits for a sequence is read from the
  // context's own counter (any generation waiting keeps the clock from starting).
  await tools.watchdog.due(
    `first pull of a dropped handle (queue ${plan.queueCapacity})`,
    pull,
    undefined,
    undefined,
    () => {
      try {
        return context.getCounters().waiting > 0;
      } catch {
        return false; // disposed: nothing waits any more
      }
    },
  );
  // Settled, the pull no longer holds the handle: collected now, it aborts its generation and gives its
  // sequence back (an abandoned raw generation holds its sequence until then, like any leaked resource).
  collect?.();
}

export async function runRawPullCase(tools: CaseTools, plan: RawPullCase, seed: number): Promise<void> {
  const { resources, watchdog } = tools;
  const model = plan.ownModel
    ? await watchdog.due(
        "raw model load",
        loadNativeAddon().loadModel(resources.modelPath, { gpuLayers: 0, useMmap: true }).promise,
      )
    : resources.rawModel;
  try {
    const context = await watchdog.due(
      "createContext",
      model.createContext({
        contextSize: 512,
        batchSize: 64,
        sequences: plan.sequences,
        threads: 1,
        batchThreads: 1,
        unifiedKvCache: false,
      }),
    );
    try {
      await Promise.all(
        plan.generations.map(async (jobPlan, index) => {
          if (jobPlan.dropHandle) {
            await pullFromDroppedHandle(tools, jobPlan, context, seed + index);
            return;
          }
          const job = context.generate({
            tokens: resources.promptPool.subarray(0, jobPlan.promptTokens),
            greedy: false,
            seed: seed + index,
            temperature: 0.8,
            maxTokens: jobPlan.maxTokens,
            ignoreEos: true,
            promptLogprobs: false,
            reusePrefix: false,
            queueCapacity: jobPlan.queueCapacity,
          });
          const stopNow = () => {
            if (jobPlan.stop.kind === "cancel") job.abort();
            else if (jobPlan.stop.kind === "dispose-context") context.dispose();
            else if (jobPlan.stop.kind === "dispose-model") model.dispose();
          };
          if (jobPlan.stop.moment === "prefill") setTimeout(stopNow, jobPlan.stop.delayMs);
          await settleExpected(tools, "raw pull", drain(tools, jobPlan, job, seed + index, stopNow));
        }),
      );
    } finally {
      context.dispose();
    }
  } finally {
    if (plan.ownModel) model.dispose();
  }
}
