import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("the tessera command", () => {
  it("prints help with its name", () => {
    const output = execFileSync(process.execPath, ["dist/cli/main.js", "--help"], { encoding: "utf8" });
    expect(output).toContain("Usage: tessera");
  });
});
