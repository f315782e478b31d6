// tessera serve forwards what a backend declares it can take (backend.capabilities), whatever the backend
// is: tool_choice reaches a backend that declares toolChoice and no other (real HTTP on 127.0.0.1; the
// scripted backend only records what it was asked).
import { describe, expect, it } from "vitest";
import { closeServersAfterEach, hello, serve } from "./scripted-server.js";

closeServersAfterEach();

const tools = [
  {
    type: "function" as const,
    function: { name: "get_weather", parameters: { type: "object", properties: {} } },
  },
];

describe("tool_choice", () => {
  it('reaches a backend that declares toolChoice as its toolChoice option ("required")', async () => {
    const { client, backend } = await serve(["Sunny"], { scripted: { capabilities: { toolChoice: true } } });
    await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      tools,
      tool_choice: "required",
    });
    expect((backend.calls[0]!.options.modelOptions as { toolChoice?: string }).toolChoice).toBe("required");
  });

  it("is not forwarded to a backend that does not declare it", async () => {
    const { client, backend } = await serve(["Sunny"]);
    await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      tools,
      tool_choice: "required",
    });
    expect((backend.calls[0]!.options.modelOptions as { toolChoice?: string }).toolChoice).toBeUndefined();
  });
});
