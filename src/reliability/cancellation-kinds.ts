// One cancelled generation of each kind, against a real llama.cpp context or a real `tessera serve`.
// Each returns how it ended: aborted as asked, finished before the abort landed, or an error (typed or
// not). The soak runner picks kinds and moments at random.
import { setTimeout as sleep } from "node:timers/promises";
import type { LlamaContext } from "../backends/llamacpp/llama-context.js";
import { GenerationAbortedError } from "../core/errors/generation-aborted-error.js";
import { GenerationCancelledError } from "../core/errors/generation-cancelled-error.js";
import { TesseraError } from "../core/errors/tessera-error.js";
import type { SeededRandom } from "./seeded-random.js";

export const cancellationKinds = [
  "before-start",
  "prefill",
  "decode",
  "queue-full",
  "break",
  "http-disconnect",
] as const;
export type CancellationKind = (typeof cancellationKinds)[number];

export type CancellationOutcome =
  | { readonly ended: "aborted" | "finished-first" }
  | { readonly ended: "typed-error" | "untyped-error"; readonly error: string };

export interface CancellationTarget {
  readonly context: LlamaContext;
  readonly shortPrompt: Int32Array;
  /** A few hundred tokens, so that an abort can land inside the prefill. */
  readonly longPrompt: Int32Array;
  /** Base URL of a running `tessera serve`, for http-disconnect. */
  readonly serverUrl?: string;
}

function classify(error: unknown): CancellationOutcome {
  if (GenerationAbortedError.isInstance(error) || GenerationCancelledError.isInstance(error)) {
    return { ended: "aborted" };
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    ended: TesseraError.isInstance(error) ? "typed-error" : "untyped-error",
    error: text.slice(0, 300),
  };
}

async function settle(run: () => Promise<"aborted" | "finished-first">): Promise<CancellationOutcome> {
  try {
    return { ended: await run() };
  } catch (error) {
    return classify(error);
  }
}

async function beforeStart(target: CancellationTarget): Promise<CancellationOutcome> {
  const controller = new AbortController();
  controller.abort();
  const stream = target.context.generate(target.shortPrompt, { maxTokens: 8, signal: controller.signal });
  return settle(async () => {
    await stream.result;
    return "finished-first";
  });
}

async function duringPrefill(target: CancellationTarget, random: SeededRandom): Promise<CancellationOutcome> {
  const controller = new AbortController();
  const stream = target.context.generate(target.longPrompt, {
    maxTokens: 4,
    reusePrefix: false,
    signal: controller.signal,
  });
  const delay = random.integer(4);
  if (delay === 0) queueMicrotask(() => controller.abort());
  else setTimeout(() => controller.abort(), delay);
  return settle(async () => {
    const result = await stream.collect();
    return result.finishReason === "abort" ? "aborted" : "finished-first";
  });
}

async function duringDecode(target: CancellationTarget, random: SeededRandom): Promise<CancellationOutcome> {
  const controller = new AbortController();
  const after = random.between(1, 30);
  const stream = target.context.generate(target.shortPrompt, {
    maxTokens: 40,
    ignoreEos: true,
    temperature: 0.8,
    seed: random.integer(1 << 30),
    signal: controller.signal,
  });
  return settle(async () => {
    let seen = 0;
    for await (const _ of stream) {
      if (++seen === after) controller.abort();
    }
    return "finished-first";
  });
}

async function withFullQueue(target: CancellationTarget, random: SeededRandom): Promise<CancellationOutcome> {
  const controller = new AbortController();
  const stream = target.context.generate(target.shortPrompt, {
    maxTokens: 200,
    ignoreEos: true,
    queueCapacity: random.between(1, 4),
    signal: controller.signal,
  });
  await sleep(random.between(2, 20));
  // Half by the signal, half by cancel() (which ends the stream with finish reason "abort").
  const bySignal = random.chance(0.5);
  if (bySignal) controller.abort();
  else stream.cancel();
  return settle(async () => {
    const result = await stream.collect();
    return result.finishReason === "abort" ? "aborted" : "finished-first";
  });
}

async function breakOut(target: CancellationTarget, random: SeededRandom): Promise<CancellationOutcome> {
  const after = random.between(1, 20);
  const stream = target.context.generate(target.shortPrompt, {
    maxTokens: 60,
    ignoreEos: true,
    queueCapacity: random.between(1, 32),
  });
  return settle(async () => {
    let seen = 0;
    for await (const _ of stream) {
      if (++seen === after) break;
    }
    const result = await stream.result;
    return result.finishReason === "abort" ? "aborted" : "finished-first";
  });
}

async function httpDisconnect(
  target: CancellationTarget,
  random: SeededRandom,
): Promise<CancellationOutcome> {
  if (target.serverUrl === undefined) throw new TypeError("http-disconnect needs a serverUrl");
  const controller = new AbortController();
  const chunksBeforeLeaving = random.integer(6);
  return settle(async () => {
    try {
      const response = await fetch(`${target.serverUrl}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "tiny",
          stream: true,
          max_tokens: 64,
          messages: [{ role: "user", content: "Tell me a long story about a lighthouse." }],
        }),
        signal: controller.signal,
      });
      if (response.status !== 200) throw new TesseraError(`the server answered ${response.status}`);
      const reader = response.body!.getReader();
      for (let chunk = 0; chunk < chunksBeforeLeaving; chunk++) {
        if ((await reader.read()).done) return "finished-first";
      }
      controller.abort();
      return "aborted";
    } catch (error) {
      // The client's own abort surfaces as an AbortError from fetch: that is the disconnect we wanted.
      if (controller.signal.aborted) return "aborted";
      throw error;
    }
  });
}

export function cancelOnce(
  kind: CancellationKind,
  target: CancellationTarget,
  random: SeededRandom,
): Promise<CancellationOutcome> {
  switch (kind) {
    case "before-start":
      return beforeStart(target);
    case "prefill":
      return duringPrefill(target, random);
    case "decode":
      return duringDecode(target, random);
    case "queue-full":
      return withFullQueue(target, random);
    case "break":
      return breakOut(target, random);
    case "http-disconnect":
      return httpDisconnect(target, random);
  }
}
