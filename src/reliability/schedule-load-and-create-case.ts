// A load-and-create case: a model load that may be aborted (by progress count or by time), then
// contexts created while the model is disposed under them, then generation on whatever contexts
// resolved. Each step must settle within the watchdog's limit and end in a typed error or success.
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { atMoment, type CaseTools, settleExpected } from "./schedule-case-tools.js";
import type { LoadAndCreateCase } from "./schedule-plan.js";

export async function runLoadAndCreateCase(tools: CaseTools, plan: LoadAndCreateCase): Promise<void> {
  const { resources, watchdog } = tools;
  const controller = new AbortController();
  let progressCalls = 0;
  const loading = loadLlamaModel(resources.modelPath, {
    signal: controller.signal,
    onProgress: () => {
      if (++progressCalls === plan.abortLoadAfterProgress) controller.abort();
    },
  });
  atMoment(plan.abortLoadAt, () => controller.abort());
  const model = await settleExpected(tools, "model load", watchdog.due("model load", loading));
  if (model === undefined) return;
  try {
    const creations = plan.contexts.map((context) => model.createContext({ ...context, threads: 1 }));
    atMoment(plan.disposeModelAt, () => model.dispose());
    const contexts = await Promise.all(
      creations.map((creation) =>
        settleExpected(tools, "createContext", watchdog.due("createContext", creation)),
      ),
    );
    try {
      if (!plan.generateAfter) return;
      for (const context of contexts) {
        if (context === undefined) continue;
        const generation = async () => {
          const stream = context.generate(resources.promptPool.subarray(0, 8), { maxTokens: 4 });
          return watchdog.due("end of a generation after the model's dispose", stream.collect());
        };
        await settleExpected(tools, "generate after dispose", generation());
      }
    } finally {
      for (const context of contexts) context?.dispose();
    }
  } finally {
    model.dispose();
  }
}
