import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("the tessera command", () => {
  it("prints help with its name", () => {
    const output = execFileSync(process.execPath, ["dist/cli/main.js", "--help"], { encoding: "utf8" });
    expect(output).toContain("Usage: tessera");
  });
});

describe("tessera inspect --help", () => {
  it("marks -o as required unless --serve, in the usage line and on the option", () => {
    const output = execFileSync(process.execPath, ["dist/cli/main.js", "inspect", "--help"], {
      encoding: "utf8",
    });
    expect(output).toMatch(
      /^Usage: tessera inspect -o <file> \[options\] \[prompt\.\.\.\] \| --serve \[--port <n>\] \[options\]$/m,
    );
    // Commander wraps descriptions at 80 columns: compare with the line breaks folded.
    const folded = output.replaceAll(/\s+/g, " ");
    expect(folded).toMatch(/-o, --out <file> where to write the HTML page \(required unless --serve\)/);
    expect(folded).toMatch(/or \(--serve\) serve a live page/);
  });
});
