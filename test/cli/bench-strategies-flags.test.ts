// `tessera bench strategies` has one flag per meaning: -n is --max-tokens (as in run and chat), and the
// sample count of best-of-n and majority voting is --samples (it used to be a second flag spelled --n).
import { describe, expect, it } from "vitest";
import { runCli } from "./support/run-cli.js";

describe("tessera bench strategies flags", () => {
  it("spells the sample count --samples and keeps -n for --max-tokens", async () => {
    const help = await runCli(["bench", "strategies", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/-n, --max-tokens <n>/);
    expect(help.stdout).toMatch(/--samples <n>/);
    expect(help.stdout).not.toMatch(/\s--n\s/);
  });

  it("refuses the old --n", async () => {
    const result = await runCli(["bench", "strategies", "--n", "3", "--quick"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--n");
  });
});
