// Leaving a `for await` over an OpenAIBackend thunk early (break) cancels the request. Its finish reason
// and usage used to stay null forever (only a full response set them), while the local backend sets
// ["abort"] and the usage counted so far at once; both backends now agree.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import { CBlock } from "../../src/core/cblock.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";
import { chunk, type FaultServer, startFaultServer } from "../helpers/fault-server.js";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
  // Five one-token chunks, then a stream that stays open: the client must not wait for its end.
  server.define("slow", (_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const word of ["a", "b", "c", "d", "e"])
      response.write(`data: ${JSON.stringify(chunk({ content: word }))}\n\n`);
  });
});
afterAll(async () => {
  await server.close();
});

describe("OpenAIBackend metadata after break", () => {
  it("sets finishReasons ['abort'] and the tokens counted so far when the loop exits", async () => {
    const backend = new OpenAIBackend({ model: "m", baseUrl: server.baseUrl("slow") });
    const { thunk } = await backend.generateFromContext(new CBlock("Hi"), new SimpleContext());
    let deltas = 0;
    for await (const _delta of thunk) if (++deltas === 3) break;
    expect(thunk.generation.finishReasons).toEqual(["abort"]);
    expect(thunk.generation.usage).not.toBeNull();
    expect(thunk.generation.usage!.completionTokens).toBeGreaterThanOrEqual(3);
    expect(thunk.generation.usage!.totalTokens).toBe(
      thunk.generation.usage!.promptTokens + thunk.generation.usage!.completionTokens,
    );
  });
});
