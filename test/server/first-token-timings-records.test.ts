// serve's first-token records (for `tessera bench ttfb`): only a completion request writes the record of
// its x-tessera-timing-id; any other request carrying the same header (a GET of the record itself, a
// model list) leaves it as it is, and reading it twice gives the same answer. A reply that is not streamed
// is recorded too: its first write is the first byte of its JSON body.

import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { FirstTokenTimings, type ServedFirstTokenTimings } from "../../src/server/first-token-timings.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";

let backend: LlamaCppBackend;
let server: TesseraServer;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({
    model: await resolveDefaultModel(),
    threads: 1,
    contextSize: 256,
  });
  server = await startTesseraServer({ backend, port: 0, firstTokenTimings: true });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await backend?.dispose();
});

async function complete(id: string, stream: boolean): Promise<void> {
  const response = await fetch(`${server.url}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tessera-timing-id": id },
    body: JSON.stringify({ model: backend.modelId, prompt: "Once upon a time", max_tokens: 4, stream }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

const record = (id: string) =>
  fetch(`${server.url}/debug/first-token/${id}`, { headers: { "x-tessera-timing-id": id } });

describe("serve's first-token records", () => {
  it("are written by completion requests only, and reading one leaves it in place", async () => {
    await complete("kept", true);
    const first = await record("kept");
    expect(first.status).toBe(200);
    const timings = (await first.json()) as ServedFirstTokenTimings;
    expect(timings.serverFirstTokenMs).toBeGreaterThan(0);
    const models = await fetch(`${server.url}/v1/models`, { headers: { "x-tessera-timing-id": "kept" } });
    expect(models.status).toBe(200);
    const again = await record("kept");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(timings);
  });

  it("are kept for replies that are not streamed, the first write being the JSON body", async () => {
    await complete("whole", false);
    const response = await record("whole");
    expect(response.status).toBe(200);
    const timings = (await response.json()) as ServedFirstTokenTimings;
    expect(timings.firstWriteMs).toBeGreaterThanOrEqual(0);
    expect(timings.serverFirstTokenMs).toBeGreaterThan(timings.requestMs);
  });

  it("take ids of up to 100 characters, the most a path parameter can carry back", async () => {
    const longest = "i".repeat(100);
    await complete(longest, true);
    expect((await record(longest)).status).toBe(200);
    // One more character could never be read back (GET answers 414): such a request gets no marks.
    const timings = new FirstTokenTimings();
    const app = Fastify();
    timings.install(app);
    app.get("/marked", async (request) => ({ marked: timings.marksOf(request) !== undefined }));
    const marked = async (id: string) =>
      (await app.inject({ url: "/marked", headers: { "x-tessera-timing-id": id } })).json().marked;
    expect(await marked("k".repeat(100))).toBe(true);
    expect(await marked("k".repeat(101))).toBe(false);
    expect(await marked("")).toBe(false);
    await app.close();
  });
});
