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
        "",
      ),
    ).toBe("node --single-threaded-gc dist/cli/main.js bench ttfb --prompt-tokens 256");
  });

  it("puts NODE_OPTIONS in front, which execArgv does not show", () => {
    expect(
      benchCommandLine(
        ["node", "/repo/dist/cli/main.js", "bench", "ttfb"],
        [],
        "/repo",
        "--max-old-space-size=4096",
      ),
    ).toBe("NODE_OPTIONS=--max-old-space-size=4096 tessera bench ttfb");
    expect(
      benchCommandLine(["node", "/repo/dist/cli/main.js", "bench"], [], "/repo", "--expose-gc --trace-gc"),
    ).toBe("NODE_OPTIONS='--expose-gc --trace-gc' tessera bench");
  });

  it("quotes words a shell would split or expand, so the line can be pasted", () => {
    expect(
      benchCommandLine(
        [
          "node",
          "/repo/dist/cli/main.js",
          "bench",
          "ttfb",
          "--out",
          "/tmp/out dir",
          "--remote",
          "http://h/v1,m,KEY",
        ],
        ["--require", "/x/a b.cjs"],
        "/repo",
        undefined,
      ),
    ).toBe(
      "node --require '/x/a b.cjs' dist/cli/main.js bench ttfb --out '/tmp/out dir' --remote http://h/v1,m,KEY",
    );
    expect(benchCommandLine(["node", "main.js", "bench", "it's", ""], [], "/", undefined)).toBe(
      "tessera bench 'it'\\''s' ''",
    );
  });
});
