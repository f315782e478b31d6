// Defect 5 of the native hardening: a C++ exception on the decode thread (a grammar that throws on
// accept, llama_token_to_piece on a bad vocabulary, std::bad_alloc) reached std::terminate and ended
// the process. The hooks build throws from the same places on demand; each throw must fail only the
// generation it happened in, with a typed error and its partial text, and leave the context usable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NativeTestHooks } from "../../src/backends/llamacpp/addon-types.js";
import { NativeDecodeError } from "../../src/backends/llamacpp/errors/native-decode-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { useHooksAddon } from "./hooks-addon.js";
import { loadTinyModel } from "./tiny-model.js";

describe("exceptions thrown on the decode thread", () => {
  let hooks: NativeTestHooks;
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  const greedy = { temperature: 0, maxTokens: 8, ignoreEos: true } as const;
  beforeAll(async () => {
    hooks = useHooksAddon();
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 256, batchSize: 64, sequences: 2, threads: 1 });
    prompt = model.tokenize("Once upon a time");
  });
  afterAll(() => model.dispose());

  async function failure(): Promise<NativeDecodeError> {
    const error = await context
      .generate(prompt, greedy)
      .collect()
      .catch((caught: unknown) => caught);
    expect(NativeDecodeError.isInstance(error)).toBe(true);
    return error as NativeDecodeError;
  }

  it("fails the generation with ERR_NATIVE_EXCEPTION when sampling throws, keeping the text before", async () => {
    const reference = await context.generate(prompt, greedy).collect();
    hooks.set("throwInSampleKind", 1);
    hooks.set("throwInSample", 4);
    const error = await failure();
    expect(error.code).toBe("ERR_NATIVE_EXCEPTION");
    expect(error.message).toContain("injected by the throwInSample test hook");
    expect(reference.text.startsWith(error.partialText)).toBe(true);
    expect(error.partialText.length).toBeGreaterThan(0);
    // The context goes on: the same prompt decodes exactly as before.
    expect((await context.generate(prompt, greedy).collect()).text).toBe(reference.text);
  });

  it("reports std::bad_alloc as ERR_OUT_OF_MEMORY with what to do", async () => {
    hooks.set("throwInSampleKind", 2);
    hooks.set("throwInSample", 1);
    const error = await failure();
    expect(error.code).toBe("ERR_OUT_OF_MEMORY");
    expect(error.message).toMatch(/queueCapacity/);
  });

  it("fails the batch's generation with ERR_DECODE when llama_decode throws", async () => {
    hooks.set("throwInDecode", 1);
    const error = await failure();
    expect(error.code).toBe("ERR_DECODE");
    expect(error.message).toContain("llama_decode threw");
  });

  it("fails only the generation that threw, not its batch-mates", async () => {
    const reference = await context.generate(prompt, { ...greedy, maxTokens: 24 }).collect();
    hooks.set("throwInSampleKind", 1);
    // Both sequences decode in one batch; the sixth sample belongs to one of them.
    const first = context.generate(prompt, { ...greedy, maxTokens: 24 });
    const second = context.generate(prompt, { ...greedy, maxTokens: 24 });
    hooks.set("throwInSample", 6);
    const outcomes = await Promise.allSettled([first.collect(), second.collect()]);
    const failed = outcomes.filter((outcome) => outcome.status === "rejected");
    const finished = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    expect(failed).toHaveLength(1);
    expect(finished).toHaveLength(1);
    expect(finished[0]?.text).toBe(reference.text);
    expect(finished[0]?.finishReason).toBe("length");
  });
});
