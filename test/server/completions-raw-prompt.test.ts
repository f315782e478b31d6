// /v1/completions continues its prompt as text, as OpenAI's legacy completions and llama-server do: no
// chat template (before, tessera wrapped the prompt in the model's template as a user message, so the
// endpoint answered a chat turn instead of continuing the text, and `bench ttfb`'s serve row did more work
// than llama-server's). The backend option behind it, rawPrompt, is refused where it cannot hold.
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { InvalidModelOptionError } from "../../src/core/errors/invalid-model-option-error.js";
import { tool } from "../../src/core/tool.js";
import { Message } from "../../src/messages/components/message.js";
import type { TesseraServer } from "../../src/server/index.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";
import { serveTinyModel, stopServedTinyModel } from "./served-tiny-model.js";

let backend: LlamaCppBackend;
let server: TesseraServer;
let client: OpenAI;

beforeAll(async () => {
  ({ backend, server, client } = await serveTinyModel({ sequences: 2 }));
});
afterAll(() => stopServedTinyModel({ backend, server }));

describe("/v1/completions", () => {
  it("decodes BOS and the prompt's own tokens, no template, and special-token text stays text", async () => {
    for (const prompt of ["Once upon a time", "The <s> tag and [INST] are text here"]) {
      const completion = await client.completions.create({
        model: "tiny",
        prompt,
        max_tokens: 3,
        temperature: 0,
      });
      const expected = backend.model.tokenize(prompt, { addSpecial: true, parseSpecial: false }).length;
      expect(completion.usage?.prompt_tokens).toBe(expected);
      // The in-process raw prompt continues it the same way (greedy).
      const [thunk] = await backend.generateFromRaw([new CBlock(prompt)], new SimpleContext(), {
        modelOptions: { temperature: 0, maxNewTokens: 3, rawPrompt: true } as never,
      });
      expect(await thunk!.avalue()).toBe(completion.choices[0]!.text);
    }
  });

  it("refuses a prompt too long for the context naming prompt, and only-too-much output naming max_tokens", async () => {
    const long = await fetch(`${server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "tiny", prompt: "word ".repeat(400), max_tokens: 2 }),
    });
    expect(long.status).toBe(400);
    const refusal = ((await long.json()) as { error: { param: string; message: string } }).error;
    expect(refusal.param).toBe("prompt");
    // In the endpoint's own terms: its field is prompt, there are no messages (final review, F4).
    expect(refusal.message).toMatch(/Shorten the prompt\./);
    const output = await fetch(`${server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "tiny", prompt: "Once", max_tokens: 1000 }),
    });
    expect(output.status).toBe(400);
    expect(((await output.json()) as { error: { param: string } }).error.param).toBe("max_tokens");
  });

  it("chat completions still render the template (more tokens than the bare text)", async () => {
    const prompt = "Once upon a time";
    const chat = await client.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: prompt }],
      max_tokens: 2,
    });
    expect(chat.usage!.prompt_tokens).toBeGreaterThan(backend.model.tokenize(prompt).length);
  });
});

describe("the rawPrompt model option", () => {
  const weather = tool({
    name: "get_weather",
    description: "Current weather in a city",
    parameters: z.object({ city: z.string() }),
    run: ({ city }) => city,
  });

  it("is refused with a system prompt too, which needs the template (review of issue 14: it was dropped)", async () => {
    const withSystem = backend.generateFromRaw([new CBlock("Once")], new SimpleContext(), {
      modelOptions: { rawPrompt: true, systemPrompt: "You are terse." } as never,
    });
    await expect(withSystem).rejects.toSatisfy(
      (error: unknown) => InvalidModelOptionError.isInstance(error) && /systemPrompt/.test(String(error)),
    );
  });

  it("logs no chat template for a raw prompt, and the template for a chat one", async () => {
    const [raw] = await backend.generateFromRaw([new CBlock("Once")], new SimpleContext(), {
      modelOptions: { rawPrompt: true, maxNewTokens: 1 } as never,
    });
    await raw!.avalue();
    expect(raw!.generateLog!.extra.chatTemplate).toBeNull();
    const [chat] = await backend.generateFromRaw([new CBlock("Once")], new SimpleContext(), {
      modelOptions: { maxNewTokens: 1 },
    });
    await chat!.avalue();
    expect(typeof chat!.generateLog!.extra.chatTemplate).toBe("string");
  });

  it("is refused with a chat history or offered tools, naming rawPrompt", async () => {
    const history = new ChatContext().add(new Message("user", "Hello")).add(new Message("assistant", "Hi"));
    const withHistory = backend.generateFromContext(new CBlock("Go on"), history, {
      modelOptions: { rawPrompt: true } as never,
    });
    await expect(withHistory).rejects.toSatisfy(
      (error: unknown) => InvalidModelOptionError.isInstance(error) && /rawPrompt/.test(String(error)),
    );
    const withTools = backend.generateFromRaw([new CBlock("Weather?")], new SimpleContext(), {
      tools: [weather],
      modelOptions: { rawPrompt: true } as never,
    });
    await expect(withTools).rejects.toSatisfy(
      (error: unknown) => InvalidModelOptionError.isInstance(error) && /tools/.test(String(error)),
    );
  });
});
