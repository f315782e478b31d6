// Defect 2 of the native hardening: model.dispose() while createContext() was in flight freed the
// weights under llama_init_from_model on the worker thread (a use-after-free: exit 139), or let a
// context resolve on freed weights. Now the weights outlive every creation in flight, which then
// rejects with ERR_DISPOSED. In a child process, so that a crash fails the test and not the runner.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { LlamaDisposedError } from "../../src/backends/llamacpp/errors/llama-disposed-error.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { packageRoot } from "../../src/support/package-folders.js";
import { hooksAddonPath, useHooksAddon } from "./hooks-addon.js";
import { loadTinyModel } from "./tiny-model.js";

const fixture = new URL("./fixtures/dispose-during-create-context.mjs", import.meta.url).pathname;

describe("disposing a model while a context is being created", () => {
  it("rejects the creation with ERR_DISPOSED and never touches the freed weights", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [fixture, hooksAddonPath, await resolveDefaultModel(), packageRoot(), "100000"],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual(Array.from({ length: 6 }, () => ({ rejected: "ERR_DISPOSED" })));
  });

  // Found in review: the library passed the addon's ERR_DISPOSED on as a plain Error.
  it("rejects LlamaDisposedError through the library", async () => {
    const hooks = useHooksAddon();
    const model = await loadTinyModel();
    hooks.set("createContextBeforeInit", 50_000);
    try {
      const pending = model.createContext({ contextSize: 256, threads: 1 });
      model.dispose();
      await expect(pending).rejects.toSatisfy(LlamaDisposedError.isInstance);
      await expect(pending).rejects.toThrow(/model/);
    } finally {
      hooks.set("createContextBeforeInit", 0);
    }
  });
});
