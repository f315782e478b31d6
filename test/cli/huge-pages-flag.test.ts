// --no-huge-pages on the generating commands and serve: the model's hugePages load option
// (docs/native.md, "Huge pages"). The flag must reach the model, and must not change an answer.
import { describe, expect, it } from "vitest";
import { openBackend } from "../../src/cli/open-model.js";
import { runCli, withoutNotices } from "./support/run-cli.js";

const common = ["--threads", "1", "--seed", "7", "--ignore-eos", "-m", "tiny", "-t", "0", "-n", "4", "Hello"];

describe("--no-huge-pages", () => {
  it("gives the same answer as the default", async () => {
    const withFlag = await runCli(["run", ...common, "--no-huge-pages"]);
    const without = await runCli(["run", ...common]);
    expect(withoutNotices(withFlag.stderr)).toBe("");
    expect(withFlag.code).toBe(0);
    expect(withFlag.stdout).toBe(without.stdout);
  });

  it("reaches the model: the load is not asked for huge pages", async () => {
    for (const hugePages of [false, true]) {
      const backend = await openBackend({ model: "tiny", threads: 1, hugePages, quiet: true });
      try {
        expect(backend.model.hugePages.requested).toBe(hugePages);
        expect(backend.context.hugePages.requested).toBe(hugePages);
      } finally {
        await backend.dispose();
      }
    }
  });

  it("is listed by serve --help", async () => {
    const result = await runCli(["serve", "--help"]);
    expect(result.stdout).toMatch(/--no-huge-pages/);
  });
});

describe("inspect --serve's flags", () => {
  it("reach the model and the context (--no-huge-pages and --flash-attn were once dropped there)", async () => {
    const { inspectorModelOptions } = await import("../../src/cli/commands/inspect-serve.js");
    expect(
      inspectorModelOptions({ port: 0, sequences: 2, hugePages: false, flashAttn: "on", threads: 1 }),
    ).toEqual({
      load: { hugePages: false },
      context: { sequences: 2, threads: 1, flashAttention: "on" },
    });
    // Commander sets hugePages: true when the flag is absent; the load's own default applies.
    expect(inspectorModelOptions({ port: 0, sequences: 4, hugePages: true }).load).toEqual({});
  });
});
