// OpenAIBackend → tessera serve → a scripted backend: what one end sends, the other understands,
// faults included (the real-model round trip is in real-model.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  OpenAIBackend,
  type OpenAIBackendOptions,
  type OpenAIHttpError,
  OpenAIProviderError,
} from "../../src/backends/openai/index.js";
import type { AbstractTool } from "../../src/core/abstract-tool.js";
import { CBlock } from "../../src/core/cblock.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { startTesseraServer, type TesseraServer, type TesseraServerOptions } from "../../src/server/index.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { ScriptedBackend, type ScriptedBackendOptions } from "../../src/testing/index.js";
import { weatherTool as weather } from "../helpers/weather-tool.js";

let server: TesseraServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function through(
  responses: ScriptedBackendOptions["responses"],
  options: Partial<OpenAIBackendOptions> = {},
  serverOptions: Partial<Omit<TesseraServerOptions, "backend">> = {},
) {
  const scripted = new ScriptedBackend({ responses, modelId: "scripted" });
  server = await startTesseraServer({ backend: scripted, port: 0, ...serverOptions });
  const remote = new OpenAIBackend({
    model: "scripted",
    baseUrl: `${server.url}/v1`,
    retry: { maxRetries: 1, initialDelayMs: 10 },
    ...options,
  });
  return { scripted, remote, server };
}

describe("OpenAIBackend through tessera serve", () => {
  it("carries tool calls both ways, bound to the caller's tool", async () => {
    const { remote, scripted } = await through((call) => ({
      text: "",
      toolCalls: [
        new ModelToolCall(
          "get_weather",
          call.options.tools![0]! as unknown as AbstractTool<never, unknown>,
          { city: "Oslo" },
          "call_7",
        ),
      ],
    }));
    const { thunk } = await remote.generateFromContext(new CBlock("Weather?"), new ChatContext(), {
      tools: [weather],
    });
    await thunk.avalue();
    expect(scripted.calls[0]!.options.tools!.map((offered) => offered.name)).toEqual(["get_weather"]);
    expect(thunk.generation.finishReasons).toEqual(["tool_calls"]);
    expect(thunk.toolCalls![0]!.toolCallId).toBe("call_7");
    expect(await thunk.toolCalls![0]!.callFunc()).toBe("sunny in Oslo");
  });

  it("carries structured output and reasoning", async () => {
    const { remote } = await through([{ text: '{"ok":true}', thinking: "Easy." }]);
    const { thunk } = await remote.generateFromContext(new CBlock("Judge"), new ChatContext(), {
      format: z.object({ ok: z.boolean() }),
    });
    await thunk.avalue();
    expect(thunk.parsedRepr).toEqual({ ok: true });
    expect(thunk.thinking).toBe("Easy.");
  });

  it("turns a mid-stream failure into OpenAIProviderError with the text so far", async () => {
    const { remote } = await through([{ text: "half an answer", failWith: new Error("decoder exploded") }]);
    const { thunk } = await remote.generateFromContext(new CBlock("Go"), new ChatContext());
    const error = await thunk.avalue().catch((caught: unknown) => caught);
    expect(OpenAIProviderError.isInstance(error)).toBe(true);
    expect(thunk.value).toBe("half an answer");
  });

  it("does not retry a context overflow (400) and retries a busy server (503)", async () => {
    const { remote } = await through([{ text: "", throwOnCall: new ContextOverflowError(999, 256) }]);
    const { thunk } = await remote.generateFromContext(new CBlock("Go"), new ChatContext());
    const overflow = (await thunk.avalue().catch((caught: unknown) => caught)) as OpenAIHttpError;
    expect(overflow.status).toBe(400);
    expect(overflow.attempts).toBe(1);
    expect(overflow.message).toContain("context holds 256 tokens");

    await server!.close();
    const busy = await through(
      () => ({ text: "slow", delayMs: 400 }),
      { retry: { maxRetries: 1, initialDelayMs: 10, maxDelayMs: 10 } },
      { parallel: 1, queue: 0 },
    );
    const first = await busy.remote.generateFromContext(new CBlock("one"), new ChatContext());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await busy.remote.generateFromContext(new CBlock("two"), new ChatContext());
    const refused = (await second.thunk.avalue().catch((caught: unknown) => caught)) as OpenAIHttpError;
    expect(refused.status).toBe(503);
    // The server's retry-after (1 s) is capped here by maxDelayMs, so the retry meets the same full server.
    expect(refused.attempts).toBe(2);
    expect(await first.thunk.avalue()).toBe("slow");
  });
});
