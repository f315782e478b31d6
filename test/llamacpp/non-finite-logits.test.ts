// A broken model (NaN logits) is detected and reported on the thunk, never sampled from.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { NonFiniteLogitsError } from "../../src/backends/llamacpp/errors/non-finite-logits-error.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { writeModelWithChatTemplate } from "./template-model.js";

const folder = mkdtempSync(join(tmpdir(), "tessera-nan-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test("NaN logits fail the thunk with NonFiniteLogitsError and leave the backend usable", async () => {
  const path = await writeModelWithChatTemplate(folder, "nan-head", null, { nanOutput: true });
  await using backend = await LlamaCppBackend.create({
    model: path,
    threads: 1,
    sequences: 1,
    contextSize: 128,
  });
  for (let attempt = 0; attempt < 2; attempt++) {
    const { thunk } = await backend.generateFromContext(new CBlock("Hello"), new ChatContext(), {
      modelOptions: { maxNewTokens: 8, seed: 1 },
    });
    const error = await thunk.avalue().catch((caught: unknown) => caught);
    expect(NonFiniteLogitsError.isInstance(error), String(error)).toBe(true);
    expect(thunk.value ?? "").toBe("");
    expect(thunk.generation.usage?.completionTokens).toBe(0);
    expect(thunk.generation.finishReasons).toEqual(["error"]);
  }
  expect(backend.context.runningGenerations).toBe(0);
});
