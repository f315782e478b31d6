// The served first token's two network stages span two processes (the benchmark's client, the server),
// so they need a clock both share exactly: CLOCK_MONOTONIC, through `monotonicMs`. The wall-clock reading
// used before (`performance.timeOrigin + now`) is off by its own amount in each Node process (0.7-5.6 ms
// measured here). A client reading an older server's record, which has only the wall-clock fields, falls
// back to them. The server here is a plain node:http one on 127.0.0.1 that answers one SSE event and a
// scripted record: what is tested is which fields the client reads, not a timing.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  monotonicMs,
  type ServedFirstTokenTimings,
} from "../../src/backends/openai/served-first-token-timings.js";
import { OpenAIHttpTarget } from "../../src/bench/targets/openai-http-target.js";

const hrtimeMs = () => Number(process.hrtime.bigint()) / 1e6;

describe("monotonicMs", () => {
  it("reads CLOCK_MONOTONIC (process.hrtime) here and in another process", async () => {
    expect(Math.abs(monotonicMs() - hrtimeMs())).toBeLessThan(0.5);
    // The built module, as the CLI tests run dist/: the code a `tessera serve` child runs.
    const module = new URL("../../dist/backends/openai/served-first-token-timings.js", import.meta.url);
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--input-type=module",
      "-e",
      `const { monotonicMs } = await import(${JSON.stringify(module.href)});
       const hr = () => Number(process.hrtime.bigint()) / 1e6;
       console.log(monotonicMs() - hr());`,
    ]);
    expect(Math.abs(Number(stdout.trim()))).toBeLessThan(0.5);
  }, 30_000);

  it("maps a past performance.now() value to the monotonic time it was taken at", () => {
    const then = performance.now();
    const hrThen = hrtimeMs();
    expect(Math.abs(monotonicMs(then) - hrThen)).toBeLessThan(0.5);
  });
});

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A server that streams one event and reports `record(arrivedAt, firstWriteAt)` for the timed request. */
async function scriptedServer(
  record: (arrivedAt: number, firstWriteAt: number) => Partial<ServedFirstTokenTimings>,
): Promise<string> {
  let saved: Partial<ServedFirstTokenTimings> | undefined;
  server = createServer((request, response) => {
    const arrivedAt = performance.now();
    if (request.method === "GET" && request.url?.startsWith("/debug/first-token/")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(saved));
      return;
    }
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const firstWriteAt = performance.now();
      saved = record(arrivedAt, firstWriteAt);
      response.write(`data: ${JSON.stringify({ choices: [{ index: 0, text: "hi" }] })}\n\n`);
      response.end("data: [DONE]\n\n");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const stages = {
  requestMs: 0.1,
  setupMs: 0,
  templateMs: 0,
  tokenizeMs: 0,
  queueWaitMs: 0,
  prefillMs: 0,
  firstDeliveryMs: 0,
  firstWriteMs: 0,
  serverFirstTokenMs: 0.1,
};

async function streamOnce(baseUrl: string) {
  const target = new OpenAIHttpTarget({
    name: "scripted",
    baseUrl,
    model: "m",
    api: "completions",
    firstTokenTimings: true,
  });
  try {
    const outcome = await target.stream(
      { prompt: "hello", maxTokens: 1, signal: new AbortController().signal },
      { firstByte() {}, content() {} },
    );
    return outcome.firstToken!.stages;
  } finally {
    await target.close();
  }
}

describe("the benchmark's client", () => {
  it("times the network stages on the monotonic fields when the server sends them", async () => {
    // Wall-clock fields 10 s off: a client that read them would report ±10,000 ms.
    const baseUrl = await scriptedServer((arrivedAt, firstWriteAt) => ({
      ...stages,
      arrivedEpochMs: performance.timeOrigin + arrivedAt + 10_000,
      firstWriteEpochMs: performance.timeOrigin + firstWriteAt - 10_000,
      arrivedMonotonicMs: monotonicMs(arrivedAt),
      firstWriteMonotonicMs: monotonicMs(firstWriteAt),
    }));
    const { transit, network } = await streamOnce(baseUrl);
    expect(transit).toBeGreaterThan(0);
    expect(transit).toBeLessThan(1_000);
    expect(network).toBeGreaterThan(0);
    expect(network).toBeLessThan(1_000);
  });

  it("falls back to the wall-clock fields for a server without the monotonic ones", async () => {
    const baseUrl = await scriptedServer((arrivedAt, firstWriteAt) => ({
      ...stages,
      arrivedEpochMs: performance.timeOrigin + arrivedAt + 10_000,
      firstWriteEpochMs: performance.timeOrigin + firstWriteAt,
    }));
    const { transit, network } = await streamOnce(baseUrl);
    // The shifted arrival shows up: the client read the epoch field.
    expect(transit).toBeGreaterThan(9_000);
    expect(network).toBeGreaterThan(0);
    expect(network).toBeLessThan(1_000);
  });
});
