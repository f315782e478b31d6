// Provider faults (bad-inputs cases 12-14) as a sweep: every scenario of the fault-injecting loopback
// server, several concurrent generations each (streamed and not), through the real OpenAIBackend.
// Every generation must end in time with the right text or a typed error that keeps the text received
// so far, and no connection may stay open afterwards.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import { CBlock } from "../../src/core/cblock.js";
import { TesseraError } from "../../src/core/errors/tessera-error.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";
import { type FaultServer, scenarios, startFaultServer } from "../helpers/fault-server.js";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

// Generous enough for 84 concurrent connections on a loaded 2-core machine; stalls still end in seconds.
const timeouts = { connectMs: 4000, firstTokenMs: 5000, idleMs: 1500, totalMs: 10_000 };
const wellBehaved = ["ok", "rate-limit", "server-error-once"];
// These answer with SSE whatever the request asked: well-behaved for streamed requests only.
const wellBehavedStreams = ["split-events", "crlf", "comments"];
// Scenarios that deliver "Hello" before failing: the error must keep it.
const partialFirst = [
  "unparsable-data",
  "truncated-json",
  "error-event",
  "reset-mid-stream",
  "stall-between-chunks",
];

interface Run {
  readonly scenario: string;
  readonly streaming: boolean;
  readonly outcome: "ok" | "typed" | "untyped";
  readonly text: string;
  readonly milliseconds: number;
  readonly detail: string;
}

async function generate(scenario: string, streaming: boolean): Promise<Run> {
  const backend = new OpenAIBackend({
    model: "fault-model",
    baseUrl: server.baseUrl(scenario),
    apiKey: "test-key",
    timeouts,
    retry: { maxRetries: 2, initialDelayMs: 5, maxDelayMs: 50 },
    maxResponseBytes: 1 << 20,
  });
  const started = performance.now();
  try {
    const { thunk } = await backend.generateFromContext(new CBlock("Say hello"), new SimpleContext(), {
      modelOptions: { stream: streaming, maxNewTokens: 32 },
    });
    const text = await thunk.avalue();
    return {
      scenario,
      streaming,
      outcome: "ok",
      text,
      milliseconds: performance.now() - started,
      detail: "",
    };
  } catch (error) {
    const partial = (error as { partialText?: unknown }).partialText;
    return {
      scenario,
      streaming,
      outcome: TesseraError.isInstance(error) ? "typed" : "untyped",
      text: typeof partial === "string" ? partial : "",
      milliseconds: performance.now() - started,
      detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

describe(`every fault scenario (${Object.keys(scenarios).length}), 4 concurrent generations each`, () => {
  it("ends in time with the answer or a typed error keeping the partial text, and closes every connection", async () => {
    const jobs: Promise<Run>[] = [];
    for (const scenario of Object.keys(scenarios)) {
      for (let copy = 0; copy < 4; copy++) jobs.push(generate(scenario, copy !== 3));
    }
    const runs = await Promise.all(jobs);
    const untyped = runs.filter((run) => run.outcome === "untyped");
    expect(untyped.map((run) => `${run.scenario}: ${run.detail}`)).toEqual([]);
    for (const run of runs) {
      // Bounded by the total timeout (plus scheduling slack on a loaded 2-core machine).
      expect(run.milliseconds, `${run.scenario} took ${run.milliseconds} ms`).toBeLessThan(
        timeouts.totalMs + 3000,
      );
      if (
        wellBehaved.includes(run.scenario) ||
        (run.streaming && wellBehavedStreams.includes(run.scenario))
      ) {
        expect(run.outcome, `${run.scenario}: ${run.detail}`).toBe("ok");
        expect(run.text).toBe("Hello world");
      }
      if (partialFirst.includes(run.scenario) && run.streaming) {
        expect(run.outcome, run.scenario).toBe("typed");
        expect(run.text, `${run.scenario}: ${run.detail}`).toContain("Hello");
      }
    }
    // Endless and huge answers are cut by the byte cap or max tokens, never read without bound.
    for (const run of runs.filter((candidate) => candidate.scenario === "endless-stream")) {
      expect(run.text.length).toBeLessThanOrEqual(1 << 20);
    }
    // Nothing left connected once every generation ended (a stalled server is hung up on).
    for (let waited = 0; waited < 3000 && server.openSockets() > 0; waited += 50) await sleep(50);
    expect(server.openSockets()).toBe(0);
  });
});
