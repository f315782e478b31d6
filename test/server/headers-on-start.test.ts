// A streamed answer's headers leave as soon as the backend has accepted the generation (it refuses up
// front), while the prompt is still being decoded: the client then parses them before the first token
// instead of with it, as OpenAI's API sends them. Refusals stay plain HTTP errors; a failure after
// acceptance and before the first output is an error event, as one after it is.
import { request } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import type { TesseraServer } from "../../src/server/index.js";
import { closeServersAfterEach, serve } from "./scripted-server.js";
import { type ServedTinyModel, serveTinyModel, stopServedTinyModel } from "./served-tiny-model.js";

closeServersAfterEach();

/** Each raw read of the response's socket, in order, and the whole body. */
async function rawReads(server: TesseraServer, body: unknown): Promise<{ reads: string[]; status: number }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const reads: string[] = [];
    const call = request(
      `${server.url}/v1/completions`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
        agent: false,
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ reads, status: response.statusCode ?? 0 }));
        response.on("error", reject);
      },
    );
    call.on("socket", (socket) => socket.on("data", (bytes: Buffer) => reads.push(bytes.toString("latin1"))));
    call.on("error", reject);
    call.end(payload);
  });
}

/** Milliseconds from the call to the response headers, and to the first event that carries text. */
async function headersThenText(url: string, body: unknown): Promise<{ headers: number; text: number }> {
  const startedAt = performance.now();
  const response = await fetch(`${url}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const headers = performance.now() - startedAt;
  let text = Number.NaN;
  const decoder = new TextDecoder();
  for await (const bytes of response.body!) {
    if (Number.isNaN(text) && /"text":"[^"]/.test(decoder.decode(bytes, { stream: true }))) {
      text = performance.now() - startedAt;
    }
  }
  return { headers, text };
}

describe("headers of a streamed answer", () => {
  it("leave before the first output when the backend refuses up front, and with it otherwise", async () => {
    const slowFirst = { text: "hello", chunks: ["hello"], delayMs: 400 };
    const early = await serve([slowFirst], { scripted: { capabilities: { refusesUpFront: true } } });
    const timing = await headersThenText(early.server.url, {
      model: "scripted-model",
      prompt: "hi",
      stream: true,
    });
    // The scripted chunk waits 400 ms: the headers came before it, not with it.
    expect(timing.text - timing.headers).toBeGreaterThan(200);
    await early.server.close();

    const late = await serve([slowFirst]);
    const held = await headersThenText(late.server.url, {
      model: "scripted-model",
      prompt: "hi",
      stream: true,
    });
    expect(held.headers).toBeGreaterThan(200);
    expect(held.text - held.headers).toBeLessThan(200);
  });

  it("turn a failure before the first output into an error event once accepted, and keep refusals HTTP errors", async () => {
    const failure = { text: "", chunks: [], failWith: new Error("the decoder broke") };
    const early = await serve([failure, { text: "", throwOnCall: new Error("refused") }], {
      scripted: { capabilities: { refusesUpFront: true } },
    });
    const failed = await fetch(`${early.server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", prompt: "hi", stream: true }),
    });
    expect(failed.status).toBe(200);
    const events = await failed.text();
    expect(events).toContain('"error"');
    expect(events).not.toContain("[DONE]");
    // A refusal (thrown by the generate call) is still a plain HTTP error, with no stream.
    const refused = await fetch(`${early.server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", prompt: "hi", stream: true }),
    });
    expect(refused.status).toBe(500);
    expect(refused.headers.get("content-type")).toContain("application/json");
    await early.server.close();

    // Without the capability, the same failure before any output is a plain HTTP error, as before.
    const late = await serve([failure]);
    const plain = await fetch(`${late.server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", prompt: "hi", stream: true }),
    });
    expect(plain.status).toBe(500);
  });
});

describe("an error event after the headers went out on acceptance", () => {
  it("names the request's own fields, as the HTTP error it replaces would", async () => {
    // Rare after acceptance, but possible: the same mapping as the 400, with /v1/completions' field names.
    const overflow = { text: "", chunks: [], failWith: new ContextOverflowError(90, 64) };
    const { server } = await serve([overflow], { scripted: { capabilities: { refusesUpFront: true } } });
    const failed = await fetch(`${server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", prompt: "hi", stream: true }),
    });
    expect(failed.status).toBe(200);
    const event = (await failed.text()).split("\n").find((line) => line.includes('"error"'))!;
    const body = JSON.parse(event.slice("data: ".length)) as { error: { param: string; code: string } };
    expect(body.error.code).toBe("context_length_exceeded");
    expect(body.error.param).toBe("prompt");
  });
});

describe("headers of a streamed answer on the real addon", () => {
  let served: ServedTinyModel;
  beforeAll(async () => {
    served = await serveTinyModel({ sequences: 1 });
  });
  afterAll(() => stopServedTinyModel(served));

  it("go to the socket in a write of their own, before the prompt is decoded", async () => {
    expect(served.backend.capabilities.refusesUpFront).toBe(true);
    // What the server hands its socket, write by write. (Reads on the client's side could merge the headers
    // with the first event on a loaded machine; the server's writes show the order whatever the timing.)
    const writes: string[] = [];
    const recordWrites = (socket: Socket) => {
      const write = socket.write;
      socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
        writes.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("latin1"));
        return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof socket.write;
    };
    served.server.app.server.once("connection", recordWrites);
    const prompt = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
    const { reads, status } = await rawReads(served.server, {
      model: "tiny",
      prompt,
      max_tokens: 4,
      temperature: 0,
      stream: true,
    });
    expect(status).toBe(200);
    // The first write is the status line and headers alone: no chunk of the body rides with them.
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/);
    expect(writes[0]).not.toContain("data:");
    expect(writes.slice(1).join("")).toContain("data: {");
    expect(reads.join("")).toContain("data: [DONE]");
    // A prompt that does not fit is still refused with a 400 before any stream starts.
    const refused = await rawReads(served.server, {
      model: "tiny",
      prompt: "word ".repeat(400),
      max_tokens: 4,
      stream: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.reads.join("")).toContain("context_length_exceeded");
  });
});
