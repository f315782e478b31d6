// --flash-attn on the generating commands and serve (issue 14): a mode is passed through to the context,
// anything else is refused in the flag's words before a model is loaded.
import { describe, expect, it } from "vitest";
import { linesOf, runCli, withoutNotices } from "./support/run-cli.js";

const common = ["--threads", "1", "--seed", "7", "--ignore-eos", "-m", "tiny"];

describe("--flash-attn", () => {
  it("runs with each mode", async () => {
    for (const mode of ["off", "on", "auto"]) {
      const result = await runCli(["run", ...common, "--flash-attn", mode, "-t", "0", "-n", "2", "Hello"]);
      expect(withoutNotices(result.stderr)).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout.trim().length).toBeGreaterThan(0);
    }
  });

  for (const command of ["run", "serve"]) {
    it(`${command} refuses another mode, naming the flag`, async () => {
      const result = await runCli([command, "--threads", "1", "--flash-attn", "sometimes", "x"]);
      expect(result.code).not.toBe(0);
      const lines = linesOf(withoutNotices(result.stderr));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/--flash-attn/);
      expect(lines[0]).toMatch(/auto, on, off/);
    });
  }
});
