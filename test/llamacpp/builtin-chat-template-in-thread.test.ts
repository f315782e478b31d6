import { afterAll, describe, expect, test } from "vitest";
import { builtinChatTemplates } from "../../src/backends/llamacpp/builtin-chat-templates.js";
import { renderChatPrompt } from "../../src/backends/llamacpp/chat-prompt-builder.js";
import { ChatTemplateSandbox } from "../../src/backends/llamacpp/chat-template-sandbox.js";
import { ChatTemplateError } from "../../src/backends/llamacpp/errors/chat-template-error.js";
import { ChatTemplateLimitError } from "../../src/backends/llamacpp/errors/chat-template-limit-error.js";
import { TemplateFormatter } from "../../src/formatting/template-formatter.js";
import { Message } from "../../src/messages/components/message.js";

const formatter = new TemplateFormatter("tiny");
const input = {
  messages: [
    new Message("user", "Hello"),
    new Message("assistant", "Hi, how can I help?"),
    new Message("user", "Sort 4 1 3 2"),
  ],
  printer: formatter,
  systemPrompt: "Be brief.",
  tools: [],
  toolChoice: "auto" as const,
  bosToken: "<s>",
  eosToken: "</s>",
};

describe("a built-in chat template", () => {
  const closedSandbox = new ChatTemplateSandbox();
  const openSandbox = new ChatTemplateSandbox({ timeoutMs: 5_000 });
  afterAll(async () => {
    await closedSandbox.close();
    await openSandbox.close();
  });

  // A closed sandbox rejects every render, so a prompt that comes back was rendered in this thread.
  test.each(Object.keys(builtinChatTemplates))("%s renders in-thread, without the sandbox", async (name) => {
    await closedSandbox.close();
    const source = builtinChatTemplates[name as keyof typeof builtinChatTemplates];
    const template = { name: `builtin:${name}`, source };
    const inThread = await renderChatPrompt(closedSandbox, template, input);
    const sandboxed = await openSandbox.render(source, {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi, how can I help?" },
        { role: "user", content: "Sort 4 1 3 2" },
      ],
      add_generation_prompt: true,
      bos_token: "<s>",
      eos_token: "</s>",
    });
    expect(inThread).toBe(sandboxed);
    expect(inThread).toContain("Sort 4 1 3 2");
  });

  test("is trusted only byte for byte: one more character goes to the sandbox", async () => {
    await closedSandbox.close();
    const template = { name: "custom", source: `${builtinChatTemplates.chatml} ` };
    const error = await renderChatPrompt(closedSandbox, template, input).catch((caught: unknown) => caught);
    expect(ChatTemplateError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("the sandbox was closed");
  });

  test("keeps the sandbox's output limit", async () => {
    const small = new ChatTemplateSandbox({ maxOutputChars: 40 });
    await small.close();
    const template = { name: "builtin:chatml", source: builtinChatTemplates.chatml };
    const error = await renderChatPrompt(small, template, input).catch((caught: unknown) => caught);
    expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
    expect((error as ChatTemplateLimitError).limit).toBe("outputChars");
    expect((error as ChatTemplateLimitError).allowed).toBe(40);
  });
});

// A render in this thread has no time or memory limit and blocks the event loop (100,000 short messages
// took seconds on the server thread): past a size bound even a built-in template goes to the sandbox,
// so limits and outcomes for big inputs are the sandbox's, as before built-ins rendered in-thread.
describe("a built-in chat template over a big input", () => {
  const many = (count: number) => ({
    ...input,
    systemPrompt: undefined,
    messages: Array.from(
      { length: count },
      (_, index) => new Message(index % 2 ? "assistant" : "user", `m${index}`),
    ),
  });

  test("is rendered in the sandbox past the in-thread bound", async () => {
    const closed = new ChatTemplateSandbox();
    await closed.close();
    const template = { name: "builtin:chatml", source: builtinChatTemplates.chatml };
    const error = await renderChatPrompt(closed, template, many(20_000)).catch((caught: unknown) => caught);
    expect(ChatTemplateError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("the sandbox was closed");
  });

  test("ends as a sandboxed render of the same input does, at 100,000 messages", async () => {
    const sandbox = new ChatTemplateSandbox();
    try {
      const template = { name: "builtin:chatml", source: builtinChatTemplates.chatml };
      const big = many(100_000);
      const outcome = (promise: Promise<string>) =>
        promise.then(
          (text) => `ok ${text.length}`,
          (error: unknown) =>
            // Which of the sandbox's limits trips first (time or memory) depends on the machine's speed;
            // what matters is that both paths end on a sandbox limit, not in an unbounded in-thread render.
            ChatTemplateLimitError.isInstance(error) ? "limit" : (error as Error).constructor.name,
        );
      const viaBuilder = await outcome(renderChatPrompt(sandbox, template, big));
      const variables = {
        messages: big.messages.map((message) => ({ role: message.role, content: message.content })),
        add_generation_prompt: true,
        bos_token: "<s>",
        eos_token: "</s>",
      };
      const sandboxed = await outcome(sandbox.render(template.source, variables, template.name));
      expect(viaBuilder).toBe(sandboxed);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
