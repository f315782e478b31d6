// The README's example for this section, as written there (imports from the package entry point).
import { expect, it } from "vitest";
import { CBlock, ChatContext, LlamaCppBackend, OpenAIBackend, startTesseraServer } from "../../src/index.js";

it("runs the README example", async () => {
  await using local = await LlamaCppBackend.create({ model: "tiny", threads: 1, sequences: 4 });
  const server = await startTesseraServer({ backend: local, port: 0 }); // 127.0.0.1 unless `host` says otherwise
  const remote = new OpenAIBackend({
    model: "tiny",
    baseUrl: `${server.url}/v1`,
    timeouts: { firstTokenMs: 30_000 },
  });
  const { thunk } = await remote.generateFromContext(new CBlock("Hello"), new ChatContext(), {
    modelOptions: { maxNewTokens: 16, temperature: 0, logits: 3, rawLogits: 2 },
  });
  let text = "";
  for await (const delta of thunk) text += delta;
  expect(text).toBe(thunk.value);
  expect(thunk.generation.ttfbMs).toBeGreaterThan(0);
  expect(thunk.generation.timeToFirstTokenMs).toBeGreaterThan(0);
  expect(thunk.generation.logits?.kind).toBe("processed");
  expect(thunk.generation.rawLogits?.kind).toBe("raw");
  await server.close();
});
