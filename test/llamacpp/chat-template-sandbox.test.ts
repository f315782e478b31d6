import { afterAll, describe, expect, test } from "vitest";
import { builtinChatTemplates } from "../../src/backends/llamacpp/builtin-chat-templates.js";
import { ChatTemplateSandbox } from "../../src/backends/llamacpp/chat-template-sandbox.js";
import { ChatTemplateError } from "../../src/backends/llamacpp/errors/chat-template-error.js";
import { ChatTemplateLimitError } from "../../src/backends/llamacpp/errors/chat-template-limit-error.js";

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Hello" },
];

describe("the chat-template sandbox", () => {
  const sandbox = new ChatTemplateSandbox({ timeoutMs: 1_000, maxOutputChars: 100_000 });
  afterAll(() => sandbox.close());

  test("renders a real template with the usual variables", async () => {
    const output = await sandbox.render(builtinChatTemplates.llama2, {
      messages,
      bos_token: "<s>",
      eos_token: "</s>",
      add_generation_prompt: true,
    });
    expect(output).toBe("<s><<SYS>>\nBe brief.\n<</SYS>>\n\n[INST] Hello [/INST]");
  });

  test("renders the chatml fallback with the generation prompt", async () => {
    const output = await sandbox.render(builtinChatTemplates.chatml, {
      messages,
      add_generation_prompt: true,
    });
    expect(output).toBe(
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  describe("with malicious templates", () => {
    test("prototype and constructor lookups find nothing", async () => {
      const output = await sandbox.render(
        "[{{ messages.constructor }}|{{ messages.__proto__ }}|{{ messages[0]['constructor'] }}|{{ ''.__class__ }}]",
        { messages },
      );
      expect(output).toBe("[|||]");
    });

    test("a constructor escape to Function is refused and runs nothing", async () => {
      const escapeTemplate =
        "{{ ''.constructor.constructor('globalThis.tesseraPwned = 1; return process')() }}";
      const error = await sandbox.render(escapeTemplate, { messages }).catch((caught: unknown) => caught);
      expect(ChatTemplateError.isInstance(error)).toBe(true);
      expect((error as ChatTemplateError).failure).toBe("render");
      expect((globalThis as Record<string, unknown>).tesseraPwned).toBeUndefined();
    });

    test("functions passed as variables never reach the template (data is copied as JSON)", async () => {
      const output = await sandbox.render("{{ probe }}|{{ nested.call }}", {
        probe: () => "host function ran",
        nested: { call: () => "host function ran" },
      });
      expect(output).not.toContain("host function ran");
    });

    test("raise_exception is a typed render error", async () => {
      const error = await sandbox
        .render("{{ raise_exception('only user and assistant roles are supported') }}", {})
        .catch((caught: unknown) => caught);
      expect(ChatTemplateError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("only user and assistant roles are supported");
    });

    test("a template that does not parse is refused", async () => {
      const error = await sandbox
        .render("{% for message in messages %}", { messages })
        .catch((caught) => caught);
      expect(ChatTemplateError.isInstance(error)).toBe(true);
      expect((error as ChatTemplateError).failure).toBe("parse");
    });

    test("a template longer than the limit is refused before rendering", async () => {
      const small = new ChatTemplateSandbox({ maxTemplateChars: 1_000 });
      const error = await small.render("x".repeat(1_001), {}).catch((caught: unknown) => caught);
      await small.close();
      expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
      expect((error as ChatTemplateLimitError).limit).toBe("templateChars");
      expect((error as ChatTemplateLimitError).measured).toBe(1_001);
    });

    test("an endless loop is stopped at the time limit, and the sandbox keeps working", async () => {
      const loop = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}";
      const started = performance.now();
      const error = await sandbox.render(loop, {}).catch((caught: unknown) => caught);
      expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
      expect((error as ChatTemplateLimitError).limit).toBe("timeMs");
      // Terminated, not run to completion (that would take minutes).
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(await sandbox.render("{{ 1 + 1 }}", {})).toBe("2");
    });

    test("output beyond the limit is refused", async () => {
      // A generous time limit: this test is about the output limit, even on a busy machine.
      const small = new ChatTemplateSandbox({ maxOutputChars: 10_000, timeoutMs: 30_000 });
      const flood = "{% for i in range(2000) %}0123456789{% endfor %}";
      const error = await small.render(flood, {}).catch((caught: unknown) => caught);
      await small.close();
      expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
      expect((error as ChatTemplateLimitError).limit).toBe("outputChars");
      expect((error as ChatTemplateLimitError).measured).toBe(20_000);
    });

    test("a memory bomb is stopped by the heap limit (or the time limit), never taking the process down", async () => {
      const bomb = "{% set items = range(200000000) %}{{ items | length }}";
      const error = await sandbox.render(bomb, {}).catch((caught: unknown) => caught);
      expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
      expect(["memory", "timeMs"]).toContain((error as ChatTemplateLimitError).limit);
      expect(await sandbox.render("ok", {})).toBe("ok");
    });

    test("string doubling is refused, not materialised", async () => {
      const doubling =
        "{% set ns = namespace(text='xxxxxxxx') %}{% for i in range(64) %}{% set ns.text = ns.text + ns.text %}{% endfor %}{{ ns.text }}";
      const error = await sandbox.render(doubling, {}).catch((caught: unknown) => caught);
      expect(ChatTemplateError.isInstance(error) || ChatTemplateLimitError.isInstance(error)).toBe(true);
    });
  });

  test("a closed sandbox rejects renders with a typed error", async () => {
    const closed = new ChatTemplateSandbox();
    await closed.close();
    await expect(closed.render("x", {})).rejects.toSatisfy((error: unknown) =>
      ChatTemplateError.isInstance(error),
    );
  });
});
