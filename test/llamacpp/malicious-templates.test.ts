// Chat templates are untrusted input from the model file: rendered in the sandbox, within limits, or refused.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ChatTemplateError } from "../../src/backends/llamacpp/errors/chat-template-error.js";
import { ChatTemplateLimitError } from "../../src/backends/llamacpp/errors/chat-template-limit-error.js";
import {
  LlamaCppBackend,
  type LlamaCppBackendOptions,
} from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { writeModelWithChatTemplate } from "./template-model.js";

const folder = mkdtempSync(join(tmpdir(), "tessera-templates-"));
const backends: LlamaCppBackend[] = [];
let loopModel: string;
let probingModel: string;
let plainModel: string;

beforeAll(async () => {
  loopModel = await writeModelWithChatTemplate(
    folder,
    "endless-loop",
    "{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}",
  );
  probingModel = await writeModelWithChatTemplate(
    folder,
    "probing",
    "{{ messages.constructor }}{{ messages.__proto__ }}{{ cycler.__init__.__globals__ }}" +
      "{% for message in messages %}[{{ message.role }}] {{ message.content }}\n{% endfor %}[assistant] ",
  );
  plainModel = await writeModelWithChatTemplate(folder, "no-template", null);
});

afterAll(async () => {
  for (const backend of backends) await backend.dispose();
  rmSync(folder, { recursive: true, force: true });
});

async function backendFor(options: LlamaCppBackendOptions): Promise<LlamaCppBackend> {
  const backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 128, ...options });
  backends.push(backend);
  return backend;
}

async function firstError(backend: LlamaCppBackend): Promise<unknown> {
  return backend
    .generateFromContext(new CBlock("Hello"), new ChatContext(), { modelOptions: { maxNewTokens: 4 } })
    .catch((caught: unknown) => caught);
}

describe("chat templates from model files", () => {
  test("an endless loop in the GGUF's template is stopped at the time limit; nothing is generated", async () => {
    const backend = await backendFor({ model: loopModel, chatTemplateLimits: { timeoutMs: 500 } });
    const error = await firstError(backend);
    expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
    expect((error as ChatTemplateLimitError).limit).toBe("timeMs");
    expect((error as Error).message).toContain("gguf:endless-loop.gguf");
    expect(backend.context.runningGenerations).toBe(0);
    // The same request fails the same way again: the process and the backend are fine.
    expect(ChatTemplateLimitError.isInstance(await firstError(backend))).toBe(true);
  });

  test("a template probing for host objects renders safely, without them", async () => {
    const backend = await backendFor({ model: probingModel });
    const { thunk } = await backend.generateFromContext(new CBlock("Hello"), new ChatContext(), {
      modelOptions: { maxNewTokens: 4, seed: 1 },
    });
    await thunk.avalue();
    expect(thunk.generateLog?.prompt).toBe("[user] Hello\n[assistant] ");
    expect(thunk.generation.usage?.completionTokens).toBe(4);
  });

  test("a model without a chat template falls back to the named built-in chatml", async () => {
    const backend = await backendFor({ model: plainModel });
    expect(backend.chatTemplate?.name).toBe("builtin:chatml");
    const { thunk } = await backend.generateFromContext(new CBlock("Hi"), new ChatContext(), {
      modelOptions: { maxNewTokens: 2, seed: 1 },
    });
    await thunk.avalue();
    expect(thunk.generateLog?.prompt).toBe("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  });

  test("a template that does not parse is refused with a typed error", async () => {
    const backend = await backendFor({ model: plainModel, chatTemplate: "{% if messages %}unclosed" });
    const error = await firstError(backend);
    expect(ChatTemplateError.isInstance(error)).toBe(true);
    expect((error as ChatTemplateError).failure).toBe("parse");
  });

  test("a template over the size limit is refused before rendering", async () => {
    const backend = await backendFor({
      model: plainModel,
      chatTemplate: `${"{# padding #}".repeat(2_000)}{{ messages[0].content }}`,
      chatTemplateLimits: { maxTemplateChars: 10_000 },
    });
    const error = await firstError(backend);
    expect(ChatTemplateLimitError.isInstance(error)).toBe(true);
    expect((error as ChatTemplateLimitError).limit).toBe("templateChars");
  });
});
