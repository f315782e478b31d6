// Many concurrent clients against a real `tessera serve` on the tiny model, a share of them leaving
// at random moments (before the answer, mid-stream). Every client that stays must get a complete
// answer or an OpenAI-style JSON error (503 when the queue is full); afterwards no generation may be
// running, no slot held, and the server must still answer correctly.
import { setTimeout as sleep } from "node:timers/promises";
import { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { resolveDefaultModel } from "../gguf/default-model.js";
import { startTesseraServer } from "../server/create-server.js";
import { caseSeed, SeededRandom } from "./seeded-random.js";

export interface DisconnectStormOptions {
  readonly clients: number;
  /** Share of clients that disconnect on purpose. Default 0.4. */
  readonly disconnectShare?: number;
  readonly runSeed?: number;
  readonly modelPath?: string;
  /** Requests that may wait for a slot (more get 503). Default 48. */
  readonly queue?: number;
}

export interface DisconnectStormFigures {
  readonly clients: number;
  readonly completed: number;
  readonly disconnected: number;
  /** Answered with an error status and an OpenAI-style JSON error body (e.g. 503 queue full). */
  readonly typedErrors: number;
  /** Anything else: a broken stream, a non-JSON error, a socket error for a client that stayed. */
  readonly untypedFailures: number;
  readonly failureSamples: readonly string[];
  readonly statuses: Readonly<Record<string, number>>;
  readonly activeEnd: number;
  readonly queuedEnd: number;
  readonly runningGenerationsEnd: number;
  readonly healthyAfterwards: boolean;
  readonly durationMs: number;
}

type ClientOutcome =
  | { readonly kind: "completed" | "disconnected"; readonly status: number }
  | { readonly kind: "typed-error"; readonly status: number }
  | { readonly kind: "untyped"; readonly status: number; readonly detail: string };

async function readJsonError(response: Response): Promise<ClientOutcome> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } };
    if (typeof body.error?.message === "string" && typeof body.error.type === "string") {
      return { kind: "typed-error", status: response.status };
    }
  } catch {
    // falls through
  }
  return { kind: "untyped", status: response.status, detail: `error body ${text.slice(0, 200)}` };
}

async function oneClient(url: string, random: SeededRandom, disconnectShare: number): Promise<ClientOutcome> {
  const controller = new AbortController();
  const stream = random.chance(0.7);
  const leave = random.chance(disconnectShare);
  const leaveAfterMs = random.integer(300);
  const leaveAfterChunks = random.integer(8);
  if (leave && random.chance(0.5)) setTimeout(() => controller.abort(), leaveAfterMs);
  let status = 0;
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny",
        stream,
        max_tokens: random.between(4, 48),
        temperature: 0.7,
        messages: [{ role: "user", content: `Client ${random.integer(1000)} says hello.` }],
      }),
      signal: controller.signal,
    });
    status = response.status;
    if (status !== 200) return await readJsonError(response);
    if (!stream) {
      const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
      if (typeof body.choices?.[0]?.message?.content !== "string") {
        return { kind: "untyped", status, detail: "a 200 answer without choices[0].message.content" };
      }
      return { kind: "completed", status };
    }
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let chunks = 0; ; chunks++) {
      if (leave && chunks === leaveAfterChunks) {
        controller.abort();
        return { kind: "disconnected", status };
      }
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    if (!text.includes("data: [DONE]")) {
      return { kind: "untyped", status, detail: `stream ended without [DONE]: ${text.slice(-200)}` };
    }
    return { kind: "completed", status };
  } catch (error) {
    if (controller.signal.aborted) return { kind: "disconnected", status };
    return {
      kind: "untyped",
      status,
      detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

export async function runDisconnectStorm(options: DisconnectStormOptions): Promise<DisconnectStormFigures> {
  const started = performance.now();
  const runSeed = options.runSeed ?? 1;
  const backend = await LlamaCppBackend.create({
    model: options.modelPath ?? (await resolveDefaultModel()),
    threads: 1,
    sequences: 4,
    contextSize: 256,
  });
  // Its clients ask for "tiny"; the backend is named after the model file.
  const server = await startTesseraServer({
    backend,
    port: 0,
    queue: options.queue ?? 48,
    aliases: ["tiny"],
  });
  try {
    const outcomes = await Promise.all(
      Array.from({ length: options.clients }, (_, index) =>
        oneClient(server.url, new SeededRandom(caseSeed(runSeed, index)), options.disconnectShare ?? 0.4),
      ),
    );
    // Disconnected clients' generations end within a decode step; give the server a moment.
    for (let waited = 0; waited < 5000; waited += 20) {
      if (server.limiter.active === 0 && backend.context.runningGenerations === 0) break;
      await sleep(20);
    }
    const statuses: Record<string, number> = {};
    const failureSamples: string[] = [];
    const counts = { completed: 0, disconnected: 0, typedErrors: 0, untypedFailures: 0 };
    for (const outcome of outcomes) {
      statuses[String(outcome.status)] = (statuses[String(outcome.status)] ?? 0) + 1;
      if (outcome.kind === "completed") counts.completed++;
      else if (outcome.kind === "disconnected") counts.disconnected++;
      else if (outcome.kind === "typed-error") counts.typedErrors++;
      else if ("detail" in outcome) {
        counts.untypedFailures++;
        if (failureSamples.length < 10) failureSamples.push(`${outcome.status}: ${outcome.detail}`);
      }
    }
    const health = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny",
        max_tokens: 4,
        messages: [{ role: "user", content: "Still there?" }],
      }),
    });
    return {
      clients: options.clients,
      ...counts,
      failureSamples,
      statuses,
      activeEnd: server.limiter.active,
      queuedEnd: server.limiter.waiting,
      runningGenerationsEnd: backend.context.runningGenerations,
      healthyAfterwards: health.status === 200,
      durationMs: performance.now() - started,
    };
  } finally {
    await server.close();
    await backend.dispose();
  }
}
