// Stop sequences end answer text, never tool-call markup (review of issue 13, F5): with stop
// ["</tool_call>"] the closing tag of a call used to match the stop sequence, so the complete call was
// dropped as "cut off (token limit)" and the answer came back empty with finish reason "stop".
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { tool } from "../../src/core/tool.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";

let backend: LlamaCppBackend;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 1024 });
});
afterAll(() => backend.dispose());

const weather = tool({
  name: "get_weather",
  description: "Current weather in a city",
  parameters: z.object({ city: z.enum(["Paris", "Oslo", "Lima"]), unit: z.enum(["C", "F"]) }),
  run: ({ city, unit }) => `${city}: 20 ${unit}`,
});

describe("stop sequences and tool-call markup", () => {
  test("a stop sequence inside the markup (its closing tag, a tool's name) does not cut the call", async () => {
    for (const stop of ["</tool_call>", "get_", '"city"']) {
      for (const seed of [1, 2, 3]) {
        const { thunk } = await backend.generateFromContext(new CBlock("Weather?"), new ChatContext(), {
          tools: [weather],
          modelOptions: {
            seed,
            temperature: 1,
            maxNewTokens: 300,
            stopSequences: [stop],
            toolChoice: "required",
          } as never,
        });
        const value = await thunk.avalue();
        const context = `stop ${stop}, seed ${seed}: ${JSON.stringify(thunk.meta.rejectedToolCalls)}`;
        expect(value, context).toBe("");
        expect(thunk.meta.rejectedToolCalls, context).toBeUndefined();
        expect(thunk.toolCalls?.length, context).toBeGreaterThan(0);
        expect(thunk.toolCalls![0]!.name).toBe("get_weather");
      }
    }
  }, 120_000);
});
