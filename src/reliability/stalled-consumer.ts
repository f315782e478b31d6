// A stream that nobody reads: the native queue fills, the decode thread parks, and from then on the
// process should neither grow nor burn CPU. Samples memory and CPU time once a second for the whole
// stall, then reads the stream to prove it was only paused.
import { setTimeout as sleep } from "node:timers/promises";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { resolveDefaultModel } from "../gguf/default-model.js";
import { cpuMilliseconds, residentBytes, settleMemory, threadCount } from "./process-probe.js";

export interface StalledConsumerOptions {
  readonly seconds: number;
  readonly modelPath?: string;
  /** Events the native queue holds before decoding pauses. Default 32. */
  readonly queueCapacity?: number;
}

export interface StalledConsumerFigures {
  readonly seconds: number;
  /** Tokens decoded while nobody read (the queue capacity, give or take the one in flight). */
  readonly tokensDecodedWhileStalled: number;
  readonly rssStartBytes: number;
  readonly rssEndBytes: number;
  readonly rssMaximumBytes: number;
  readonly rssChangePercent: number;
  /** CPU milliseconds per wall second over the stall (after the queue filled). */
  readonly cpuMsPerSecond: number;
  readonly threadsStart: number;
  readonly threadsEnd: number;
  /** The stream, read afterwards, delivered every token it was asked for. */
  readonly resumedToTheEnd: boolean;
}

export async function runStalledConsumer(options: StalledConsumerOptions): Promise<StalledConsumerFigures> {
  const model = await loadLlamaModel(options.modelPath ?? (await resolveDefaultModel()));
  try {
    const context = await model.createContext({ contextSize: 512, batchSize: 512, threads: 1 });
    const prompt = model.tokenize("A stream that nobody reads");
    const maxTokens = 256;
    const queueCapacity = options.queueCapacity ?? 32;
    const stream = context.generate(prompt, { temperature: 0, maxTokens, ignoreEos: true, queueCapacity });
    // Let the queue fill (a few ms on the tiny model), then take the baseline.
    for (let waited = 0; waited < 5000; waited += 10) {
      if (context.sequenceTokens(0).length >= prompt.length + queueCapacity - 1) break;
      await sleep(10);
    }
    await settleMemory();
    const rssStartBytes = residentBytes();
    const threadsStart = threadCount();
    const cellsAtStart = context.sequenceTokens(0).length;
    const cpuStart = cpuMilliseconds();
    const wallStart = performance.now();
    let rssMaximumBytes = rssStartBytes;
    const deadline = wallStart + options.seconds * 1000;
    while (performance.now() < deadline) {
      await sleep(Math.min(1000, Math.max(0, deadline - performance.now())));
      rssMaximumBytes = Math.max(rssMaximumBytes, residentBytes());
    }
    const cpuMsPerSecond = ((cpuMilliseconds() - cpuStart) * 1000) / (performance.now() - wallStart);
    const tokensDecodedWhileStalled = context.sequenceTokens(0).length - cellsAtStart;
    await settleMemory();
    const rssEndBytes = residentBytes();
    const threadsEnd = threadCount();
    const result = await stream.collect();
    context.dispose();
    return {
      seconds: options.seconds,
      tokensDecodedWhileStalled,
      rssStartBytes,
      rssEndBytes,
      rssMaximumBytes,
      rssChangePercent: ((rssEndBytes - rssStartBytes) / rssStartBytes) * 100,
      cpuMsPerSecond,
      threadsStart,
      threadsEnd,
      resumedToTheEnd: result.generatedTokens === maxTokens && result.finishReason === "length",
    };
  } finally {
    model.dispose();
  }
}
