import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  OpenAIBackend,
  type OpenAIBackendOptions,
  OpenAIConnectionError,
  OpenAIHttpError,
  OpenAIIncompleteStreamError,
  OpenAIMalformedStreamError,
  OpenAIProviderError,
  OpenAIResponseTooLargeError,
  OpenAITimeoutError,
} from "../../src/backends/openai/index.js";
import { CBlock } from "../../src/core/cblock.js";
import type { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";
import { type FaultServer, startFaultServer } from "../helpers/fault-server.js";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

function backendFor(scenario: string, options: OpenAIBackendOptions = {}): OpenAIBackend {
  return new OpenAIBackend({
    model: "fault-model",
    baseUrl: server.baseUrl(scenario),
    apiKey: "test-key",
    retry: { maxRetries: 2, initialDelayMs: 10, maxDelayMs: 2_000 },
    ...options,
  });
}

async function generate(scenario: string, options: OpenAIBackendOptions = {}, maxNewTokens?: number) {
  const backend = backendFor(scenario, options);
  const { thunk } = await backend.generateFromContext(new CBlock("Say hello"), new SimpleContext(), {
    modelOptions: maxNewTokens === undefined ? {} : { maxNewTokens },
  });
  return thunk;
}

/** The error the thunk failed with (the test fails if it did not fail). */
async function failureOf(thunk: ModelOutputThunk<string>): Promise<unknown> {
  const outcome = await thunk.avalue().then(
    (value) => ({ failed: false, value }),
    (error: unknown) => ({ failed: true, error }),
  );
  expect(outcome.failed, `expected a failure, got ${JSON.stringify(outcome)}`).toBe(true);
  return (outcome as { error: unknown }).error;
}

describe("OpenAIBackend against a well-behaved server", () => {
  it("streams the answer and fills the metadata", async () => {
    const thunk = await generate("ok");
    expect(await thunk.avalue()).toBe("Hello world");
    expect(thunk.generation.usage).toEqual({ promptTokens: 5, completionTokens: 2, totalTokens: 7 });
    expect(thunk.generation.finishReasons).toEqual(["stop"]);
    expect(thunk.generation.responseId).toBe("chatcmpl-fault");
    expect(thunk.generation.responseModel).toBe("fault-model");
    expect(thunk.generation.ttfbMs).toBeGreaterThan(0);
    expect(thunk.generation.timeToFirstTokenMs).toBeGreaterThanOrEqual(thunk.generation.ttfbMs!);
    expect(thunk.raw?.streamedChunks).toHaveLength(5);
    const request = server.hits.get("ok")!.at(-1)!;
    expect(request.headers.authorization).toBe("Bearer test-key");
    expect(request.body).toMatchObject({
      model: "fault-model",
      stream: true,
      messages: [{ role: "user", content: "Say hello" }],
    });
  });

  it("reuses its connection for the next request", async () => {
    const before = server.connections();
    for (let index = 0; index < 3; index += 1)
      expect(await (await generate("ok")).avalue()).toBe("Hello world");
    expect(server.connections() - before).toBe(1);
  });

  it("answers without streaming when asked", async () => {
    const backend = backendFor("ok");
    const { thunk } = await backend.generateFromContext(new CBlock("Say hello"), new SimpleContext(), {
      modelOptions: { stream: false },
    });
    expect(await thunk.avalue()).toBe("Hello world");
    expect(thunk.generation.streaming).toBe(false);
    expect(thunk.generation.usage?.totalTokens).toBe(7);
    expect(thunk.raw?.streamedChunks).toBeNull();
  });
});

describe("malformed SSE (case 12)", () => {
  it("fails on an unparsable data line, keeping the text received so far", async () => {
    const thunk = await generate("unparsable-data");
    const error = await failureOf(thunk);
    expect(OpenAIMalformedStreamError.isInstance(error)).toBe(true);
    expect((error as OpenAIMalformedStreamError).partialText).toBe("Hello");
    expect(thunk.value).toBe("Hello");
  });

  it("reassembles events split across chunks at any byte", async () => {
    expect(await (await generate("split-events")).avalue()).toBe("Hello world");
  });

  it("reads CRLF line endings", async () => {
    expect(await (await generate("crlf")).avalue()).toBe("Hello world");
  });

  it("skips comment lines", async () => {
    expect(await (await generate("comments")).avalue()).toBe("Hello world");
  });

  it("fails a stream that ends without [DONE]", async () => {
    const thunk = await generate("no-done");
    const error = await failureOf(thunk);
    expect(OpenAIIncompleteStreamError.isInstance(error)).toBe(true);
    expect(thunk.value).toBe("Hello world");
  });

  it("fails on truncated JSON at the end of the body", async () => {
    const thunk = await generate("truncated-json");
    const error = await failureOf(thunk);
    expect(OpenAIMalformedStreamError.isInstance(error)).toBe(true);
    expect(thunk.value).toBe("Hello");
  });
});

describe("HTTP faults (case 13)", () => {
  it("honours retry-after on a 429, then succeeds", async () => {
    const started = performance.now();
    const thunk = await generate("rate-limit-retry-after");
    expect(await thunk.avalue()).toBe("Hello world");
    expect(server.hits.get("rate-limit-retry-after")).toHaveLength(2);
    // The server asked for one second; backoff alone would have waited ~10 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("backs off and retries a 429 without retry-after", async () => {
    expect(await (await generate("rate-limit")).avalue()).toBe("Hello world");
    expect(server.hits.get("rate-limit")).toHaveLength(2);
  });

  it("gives up after maxRetries with a typed error that counts the attempts", async () => {
    const error = await failureOf(await generate("always-rate-limited"));
    expect(OpenAIHttpError.isInstance(error)).toBe(true);
    expect((error as OpenAIHttpError).status).toBe(429);
    expect((error as OpenAIHttpError).attempts).toBe(3);
    expect(server.hits.get("always-rate-limited")).toHaveLength(3);
  });

  it("retries a 5xx once and succeeds", async () => {
    expect(await (await generate("server-error-once")).avalue()).toBe("Hello world");
    expect(server.hits.get("server-error-once")).toHaveLength(2);
  });

  it("never retries a 400", async () => {
    const error = await failureOf(await generate("bad-request"));
    expect((error as OpenAIHttpError).status).toBe(400);
    expect(server.hits.get("bad-request")).toHaveLength(1);
  });

  it("fails on an error event after a 200, without retrying", async () => {
    const thunk = await generate("error-event");
    const error = await failureOf(thunk);
    expect(OpenAIProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("the model crashed");
    expect(thunk.value).toBe("Hello");
    expect(server.hits.get("error-event")).toHaveLength(1);
  });

  it("fails on a reset mid-stream after a token, without retrying", async () => {
    const thunk = await generate("reset-mid-stream");
    const error = await failureOf(thunk);
    expect(OpenAIIncompleteStreamError.isInstance(error)).toBe(true);
    expect(thunk.value).toBe("Hello");
    expect(server.hits.get("reset-mid-stream")).toHaveLength(1);
  });

  it("retries a reset before any response, then reports a connection error", async () => {
    const error = await failureOf(
      await generate("reset-before-response", { retry: { maxRetries: 1, initialDelayMs: 5 } }),
    );
    expect(OpenAIConnectionError.isInstance(error)).toBe(true);
    expect(server.hits.get("reset-before-response")).toHaveLength(2);
  });

  it("times out waiting for headers (connect timeout)", async () => {
    const error = await failureOf(
      await generate("stall-before-headers", { timeouts: { connectMs: 150 }, retry: { maxRetries: 0 } }),
    );
    expect(OpenAITimeoutError.isInstance(error)).toBe(true);
    expect((error as OpenAITimeoutError).phase).toBe("connect");
  });

  it("times out waiting for the first token, separately from the idle timeout", async () => {
    const error = await failureOf(
      await generate("stall-before-first-byte", {
        timeouts: { firstTokenMs: 150, idleMs: 5_000 },
        retry: { maxRetries: 0 },
      }),
    );
    expect((error as OpenAITimeoutError).phase).toBe("first-token");
  });

  it("times out a stall between chunks (idle) and keeps the text", async () => {
    const thunk = await generate("stall-between-chunks", { timeouts: { idleMs: 150 } });
    const error = await failureOf(thunk);
    expect((error as OpenAITimeoutError).phase).toBe("idle");
    expect(thunk.value).toBe("Hello");
    expect(server.hits.get("stall-between-chunks")).toHaveLength(1);
  });

  it("restarts the idle clock with every chunk: a steady stream reaches the total timeout", async () => {
    const error = await failureOf(
      await generate("endless-stream", {
        timeouts: { idleMs: 150, totalMs: 500 },
        maxResponseBytes: 1e12,
      }),
    );
    expect((error as OpenAITimeoutError).phase).toBe("total");
  });

  it("takes a clock longer than a timer can hold (Infinity) as no clock at all", async () => {
    // Node would fire such a timer after 1 ms; the stall must run into the total clock instead.
    const thunk = await generate("stall-between-chunks", { timeouts: { idleMs: Infinity, totalMs: 300 } });
    const error = await failureOf(thunk);
    expect((error as OpenAITimeoutError).phase).toBe("total");
    expect(thunk.value).toBe("Hello");
  });

  it("stops at the total timeout", async () => {
    const error = await failureOf(
      await generate("endless-stream", { timeouts: { totalMs: 200 }, maxResponseBytes: 1e12 }),
    );
    expect((error as OpenAITimeoutError).phase).toBe("total");
  });

  it("refuses a connection to a port nobody listens on", async () => {
    const backend = new OpenAIBackend({
      model: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      retry: { maxRetries: 0 },
    });
    const { thunk } = await backend.generateFromContext(new CBlock("hi"), new SimpleContext());
    expect(OpenAIConnectionError.isInstance(await failureOf(thunk))).toBe(true);
  });
});

describe("more than asked for (case 14)", () => {
  it("caps the bytes of a huge chunk", async () => {
    const thunk = await generate("huge-chunk", { maxResponseBytes: 1024 * 1024 });
    const error = await failureOf(thunk);
    expect(OpenAIResponseTooLargeError.isInstance(error)).toBe(true);
    expect((error as OpenAIResponseTooLargeError).unit).toBe("bytes");
    expect(thunk.value).toBe("Hello");
  });

  it("cuts an endless stream at maxNewTokens and closes the connection", async () => {
    const thunk = await generate("endless-stream", {}, 50);
    const error = await failureOf(thunk);
    expect(OpenAIResponseTooLargeError.isInstance(error)).toBe(true);
    expect((error as OpenAIResponseTooLargeError).unit).toBe("tokens");
    expect(thunk.value).toBe("again ".repeat(50));
    expect(server.hits.get("endless-stream")!.at(-1)!.body.max_tokens).toBe(50);
  });
});

describe("cancellation", () => {
  it("a caller's abort fails the thunk with AbortError and the partial text", async () => {
    const backend = backendFor("stall-between-chunks");
    const controller = new AbortController();
    const { thunk } = await backend.generateFromContext(new CBlock("hi"), new SimpleContext(), {
      signal: controller.signal,
    });
    const first = await thunk.astream();
    expect(first).toBe("Hello");
    controller.abort();
    const error = await failureOf(thunk);
    expect((error as Error).name).toBe("AbortError");
  });

  it("leaving a for-await early closes the connection", async () => {
    const thunk = await generate("endless-stream");
    let pieces = 0;
    for await (const _piece of thunk) {
      pieces += 1;
      if (pieces === 3) break;
    }
    expect(thunk.cancelled).toBe(true);
    const request = server.hits.get("endless-stream")!.at(-1)!;
    await expect.poll(() => request.responseClosed, { timeout: 5_000 }).toBe(true);
  });
});
