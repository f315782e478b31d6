// tessera serve under load: bounded concurrency, disconnects and slow clients (scripted backend).
import { request as httpRequest } from "node:http";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { closeServersAfterEach, hello, serve } from "./scripted-server.js";

closeServersAfterEach();

describe("tessera serve under load", () => {
  it("runs up to --parallel, queues up to --queue and answers 503 beyond", async () => {
    const { client, server } = await serve(() => ({ text: "slow answer", delayMs: 150 }), {
      parallel: 1,
      queue: 1,
    });
    const pending = Promise.allSettled(
      [0, 1, 2].map(() => client.chat.completions.create({ model: "scripted-model", messages: hello })),
    );
    // While one runs and one waits, the gauge and /health show the waiting request.
    await expect
      .poll(async () => (await fetch(`${server.url}/metrics`)).text())
      .toContain("tessera_queue_depth 1");
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({ active: 1, queued: 1 });
    const results = await pending;
    const statuses = results.map((result) =>
      result.status === "fulfilled" ? 200 : (result.reason as InstanceType<typeof OpenAI.APIError>).status,
    );
    expect(statuses.sort()).toEqual([200, 200, 503]);
    expect(server.limiter.active).toBe(0);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('tessera_http_requests_total{route="/v1/chat/completions",status="503"} 1');
    expect(metrics).toContain("tessera_time_to_first_byte_seconds_bucket");
    expect(metrics).toContain("tessera_queue_depth 0");
    expect(metrics).toMatch(/tessera_tokens_total\{kind="completion"\} 4/);
  });

  it("cancels the generation when the client disconnects mid-stream", async () => {
    const { client, backend, server } = await serve(() => ({ text: "word ".repeat(200), delayMs: 10 }));
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "scripted-model", messages: hello, stream: true },
      { signal: controller.signal },
    );
    let pieces = 0;
    await (async () => {
      for await (const _chunk of stream) {
        pieces += 1;
        if (pieces === 3) controller.abort();
      }
    })().catch(() => undefined);
    await expect.poll(() => server.limiter.active, { timeout: 5_000 }).toBe(0);
    const pushedAtCancel = backend.pushedChunks;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(backend.pushedChunks).toBe(pushedAtCancel);
    expect(backend.pushedChunks).toBeLessThan(100);
    expect(await server.metrics.cancelled.get()).toMatchObject({ values: [{ value: 1 }] });
  });

  it("stops pulling from the backend while a slow client's socket buffer is full", async () => {
    // Few large chunks: ~20 MB in all, more than loopback socket buffers hold.
    const chunk = "y".repeat(256 * 1024);
    const total = 80;
    const { backend, server } = await serve(
      () => ({ text: chunk.repeat(total), chunks: Array(total).fill(chunk) }),
      {
        scripted: { queueCapacity: 2 },
      },
    );
    const url = new URL(`${server.url}/v1/chat/completions`);
    let received = 0;
    const response = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      const request = httpRequest(
        url,
        { method: "POST", headers: { "content-type": "application/json" } },
        resolve,
      );
      request.on("error", reject);
      request.end(JSON.stringify({ model: "scripted-model", messages: hello, stream: true }));
    });
    response.pause();
    // Let the server fill every buffer it can; it must then wait instead of pulling the whole answer.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pushedWhilePaused = backend.pushedChunks;
    expect(pushedWhilePaused).toBeLessThan(total / 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(backend.pushedChunks - pushedWhilePaused).toBeLessThan(5);
    response.on("data", (data: Buffer) => {
      received += data.length;
    });
    response.resume();
    await new Promise((resolve) => response.on("end", resolve));
    expect(backend.pushedChunks).toBe(total);
    expect(received).toBeGreaterThan(total * chunk.length);
  });
});
