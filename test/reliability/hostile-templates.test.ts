// Chat templates are untrusted input from model files (bad-inputs case 6). A catalogue of hostile
// templates goes through the sandbox the backend renders with: each renders without reaching the host
// or is refused with a typed error, within the time limit; the sandbox stays usable. One of them also
// arrives the way a user meets it: inside a GGUF file loaded by LlamaCppBackend.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinChatTemplates } from "../../src/backends/llamacpp/builtin-chat-templates.js";
import { ChatTemplateSandbox } from "../../src/backends/llamacpp/chat-template-sandbox.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { TesseraError } from "../../src/core/errors/tessera-error.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { writeModelWithChatTemplate } from "../llamacpp/template-model.js";

const hostile: Readonly<Record<string, string>> = {
  "constructor chain": "{{ messages.constructor.constructor('return process')() }}",
  "prototype walk": "{{ messages.__proto__.__proto__ }}{{ ''.constructor.prototype }}",
  "python globals": "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
  "python subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
  "lipsum globals": "{{ lipsum.__globals__['os'] }}{{ self.__init__.__globals__ }}",
  "require and process": "{{ require('child_process') }}{{ process.env }}{{ globalThis }}",
  "attribute strings": "{{ messages['constructor']['constructor'] }}{{ messages|attr('__proto__') }}",
  "nested endless loops":
    "{% for i in range(100000000) %}{% for j in range(100000000) %}{% endfor %}{% endfor %}",
  "output bomb":
    "{% for i in range(100000000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}",
  "string doubling": "{% set s = 'x' %}{% for i in range(64) %}{% set s = s ~ s %}{% endfor %}{{ s }}",
  "huge list": "{{ range(1000000000)|list|length }}",
  "recursive macro": "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
  "deep nesting": `${"{% if true %}".repeat(5000)}x${"{% endif %}".repeat(5000)}`,
  "unclosed block": "{% for message in messages %}{{ message.content }}",
  "oversized source": `{{ '${"a".repeat(300_000)}' }}`,
  "raise exception": "{{ raise_exception('nope') }}",
};
// Text that must never appear in a render: what a template that reached the host would print.
const leaks = ["[native code]", "function", "process", "uid=", "child_process", "PATH"];

describe(`${Object.keys(hostile).length} hostile chat templates in the sandbox`, () => {
  const sandbox = new ChatTemplateSandbox({ timeoutMs: 1000, maxOutputChars: 1 << 20 });
  afterAll(() => sandbox.close());
  const messages = [{ role: "user", content: "Hello" }];

  it.each(Object.entries(hostile))(
    "%s: renders without the host or is refused in time",
    async (_name, source) => {
      const started = performance.now();
      const outcome = await sandbox.render(source, { messages, add_generation_prompt: true }).then(
        (output) => ({ output, error: undefined as unknown }),
        (error: unknown) => ({ output: "", error }),
      );
      const milliseconds = performance.now() - started;
      if (outcome.error !== undefined)
        expect(TesseraError.isInstance(outcome.error), String(outcome.error)).toBe(true);
      for (const leak of leaks) expect(outcome.output).not.toContain(leak);
      expect(outcome.output.length).toBeLessThanOrEqual(1 << 20);
      // The time limit plus a fresh worker's start on a loaded 2-core machine.
      expect(milliseconds).toBeLessThan(6000);
      // The sandbox still renders a real template afterwards.
      expect(
        await sandbox.render(builtinChatTemplates.chatml, { messages, add_generation_prompt: true }),
      ).toContain("<|im_start|>user\nHello<|im_end|>");
    },
  );
});

describe("a GGUF whose chat template reaches for the host", () => {
  const folder = mkdtempSync(join(tmpdir(), "tessera-hostile-template-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("is refused or rendered safely by LlamaCppBackend, which keeps working", async () => {
    const path = await writeModelWithChatTemplate(
      folder,
      "escape",
      `${hostile["constructor chain"]}{% for m in messages %}{{ m.content }}{% endfor %}${hostile["output bomb"]}`,
    );
    await using backend = await LlamaCppBackend.create({
      model: path,
      threads: 1,
      sequences: 1,
      contextSize: 128,
      chatTemplateLimits: { timeoutMs: 1000 },
    });
    const started = performance.now();
    const error = await backend
      .generateFromContext(new CBlock("Hello"), new ChatContext(), { modelOptions: { maxNewTokens: 2 } })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(TesseraError.isInstance(error), String(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(6000);
    expect(backend.context.runningGenerations).toBe(0);
    // A built-in template on the same model still generates.
    const tokens = backend.model.tokenize("Hello");
    expect(
      (await backend.context.generate(tokens, { maxTokens: 2, temperature: 0 }).collect()).generatedTokens,
    ).toBe(2);
  });
});
