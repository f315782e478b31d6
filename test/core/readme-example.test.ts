import { expect, it } from "vitest";
import { z } from "zod";
import { CBlock, ModelToolCall, tool } from "../../src/core/index.js";
import { ChatContext } from "../../src/stdlib/contexts/index.js";
import { ScriptedBackend } from "../../src/testing/index.js";

// Keep in step with the "Core" section of README.md.
it("runs the README example of the core", async () => {
  const output: string[] = [];
  const backend = new ScriptedBackend({
    responses: [{ text: "Hello there!", chunks: ["Hello", " there!"], delayMs: 10 }],
  });
  const { thunk, context } = await backend.generateFromContext(new CBlock("Say hi"), new ChatContext(), {
    modelOptions: { temperature: 0, maxNewTokens: 32 },
  });
  for await (const delta of thunk) output.push(delta); // streams "Hello", " there!"
  output.push(`${context.asList().length}`); // 2: the action and the thunk

  const add = tool({
    name: "add",
    description: "Add two numbers",
    parameters: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a + b,
  });
  output.push(`${await new ModelToolCall("add", add, '{"a": 2, "b": 3}').callFunc()}`); // 5

  expect(output).toEqual(["Hello", " there!", "2", "5"]);
  expect(thunk.generation.usage?.completionTokens).toBe(2);
});
