// benchCommandLine: what a result file records as the command that made it.
import { describe, expect, it } from "vitest";
import { benchCommandLine } from "../../src/cli/bench-output.js";

describe("benchCommandLine", () => {
  it("is the tessera command when node ran with no flags of its own", () => {
    expect(
      benchCommandLine(
        ["/usr/bin/node", "/repo/dist/cli/main.js", "bench", "ttfb", "--runs", "30"],
        [],
        "/repo",
      ),
    ).toBe("tessera bench ttfb --runs 30");
  });

  it("names node, its flags and the script when node ran with flags, which change what a run measures", () => {
    expect(
      benchCommandLine(
        ["/usr/bin/node", "/repo/dist/cli/main.js", "bench", "ttfb", "--prompt-tokens", "256"],
        ["--single-threaded-gc"],
        "/repo",
      ),
    ).toBe("node --single-threaded-gc dist/cli/main.js bench ttfb --prompt-tokens 256");
  });
});
