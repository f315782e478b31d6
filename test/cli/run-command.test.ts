// `tessera run` spawned on the default model (tiny-text): exit codes, output shape, NDJSON that parses, one-line errors.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { linesOf, runCli, withoutNotices } from "./support/run-cli.js";

const common = ["--threads", "1", "--seed", "7", "--ignore-eos"];

describe("tessera run", () => {
  it("streams an answer and exits 0", async () => {
    const result = await runCli(["run", ...common, "-n", "8", "Write a haiku about tokens"]);
    expect(withoutNotices(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim().length).toBeGreaterThan(0);
    expect(result.stdout.endsWith("\n")).toBe(true);
  });

  it("gives the same answer for the same seed and sampler", async () => {
    const args = ["run", ...common, "-n", "6", "-t", "0.9", "--top-k", "40", "Hello"];
    const [first, second] = [await runCli(args), await runCli(args)];
    expect(first.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
  });

  it("writes one JSON event per token with --json", async () => {
    const result = await runCli(["run", ...common, "-n", "5", "--json", "Hello"]);
    expect(result.code).toBe(0);
    const events = linesOf(result.stdout).map((line) => JSON.parse(line));
    expect(events.map((event) => event.type)).toEqual([
      "start",
      "token",
      "token",
      "token",
      "token",
      "token",
      "finish",
    ]);
    const tokens = events.filter((event) => event.type === "token");
    expect(tokens.map((event) => event.index)).toEqual([0, 1, 2, 3, 4]);
    for (const event of tokens) {
      expect(Number.isInteger(event.token)).toBe(true);
      expect(typeof event.text).toBe("string");
      expect(event.logprob).toBeLessThanOrEqual(0);
    }
    const finish = events.at(-1);
    expect(finish.usage.completionTokens).toBe(5);
    expect(finish.finishReason).toBe("length");
    expect(finish.text).toBe(tokens.map((event) => event.text).join(""));
  });

  it("prints a raw vs processed table with --logits k", async () => {
    const result = await runCli([
      "run",
      ...common,
      "-n",
      "4",
      "--logits",
      "3",
      "-t",
      "0.8",
      "--top-k",
      "5",
      "Hi",
    ]);
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines[0]).toMatch(/#\s+token\s+p proc\s+p raw\s+top processed \| top raw/);
    const rows = lines.slice(1, 5);
    for (const [index, row] of rows.entries()) {
      expect(row).toMatch(new RegExp(`^\\s+${index + 1}\\s+"`));
      const [processedPart, rawPart] = row.split(" | ");
      expect(processedPart!.match(/ (\d\.\d{3}|\de-\d+|cut)/g)!.length).toBeGreaterThanOrEqual(3 + 2);
      expect(rawPart!.match(/"[^"]*" /g)).toHaveLength(3);
    }
    expect(lines[5]).toBe("");
  });

  it("combines --json and --logits: alternatives in every token event", async () => {
    const result = await runCli(["run", ...common, "-n", "3", "--json", "--logits", "2", "Hi"]);
    const tokens = linesOf(result.stdout)
      .map((line) => JSON.parse(line))
      .filter((event) => event.type === "token");
    expect(tokens).toHaveLength(3);
    for (const event of tokens) {
      expect(event.top).toHaveLength(2);
      expect(event.raw.top).toHaveLength(2);
      expect(event.raw.logprob).toBeLessThan(event.top[0].logprob + 1e-9);
    }
  });

  it("reads the prompt from stdin when none is given", async () => {
    const result = await runCli(["run", ...common, "-n", "3"], { input: "Tell me a story\n" });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().length).toBeGreaterThan(0);
  });
});

describe("tessera run errors are one line", () => {
  const cases: Array<[string, string[], RegExp, string?]> = [
    ["an out-of-range sampler flag", ["run", "--top-p", "2", "x"], /--top-p.*Expected a number in \(0, 1\]/],
    ["an unknown flag", ["run", "--bogus", "x"], /unknown option '--bogus'/],
    [
      "an unknown model",
      ["run", "--model", "no-such-model", "x"],
      /^tessera: Cannot resolve model "no-such-model"/,
    ],
    ["no prompt at all", ["run"], /^tessera: No prompt given/, ""],
    [
      "a prompt longer than the context",
      ["run", "--threads", "1", "--context-size", "64", "word ".repeat(100)],
      /^tessera: Context overflow: the prompt has \d+ tokens.*Nothing was decoded/,
    ],
    [
      // Refused from its bytes before tokenizing: the count is a lower bound and says so.
      "a prompt far longer than the context",
      ["run", "--threads", "1", "--context-size", "64", "word ".repeat(400)],
      /^tessera: Context overflow: the prompt has at least \d+ tokens.*Nothing was decoded/,
    ],
  ];
  for (const [name, args, pattern, input] of cases) {
    it(`reports ${name}`, async () => {
      const result = await runCli(args, input === undefined ? {} : { input });
      expect(result.code).toBe(1);
      expect(linesOf(withoutNotices(result.stderr))).toHaveLength(1);
      expect(withoutNotices(result.stderr)).toMatch(pattern);
      expect(withoutNotices(result.stderr)).not.toMatch(/\n\s+at /);
    });
  }

  it("reports a file that is not a GGUF model", async () => {
    const folder = mkdtempSync(join(tmpdir(), "tessera-cli-"));
    const file = join(folder, "broken.gguf");
    writeFileSync(file, "this is not a model file, only some bytes of text");
    const result = await runCli(["run", "--model", file, "x"]);
    expect(result.code).toBe(1);
    expect(linesOf(withoutNotices(result.stderr))).toHaveLength(1);
    expect(withoutNotices(result.stderr)).toMatch(/^tessera: /);
    expect(withoutNotices(result.stderr)).not.toMatch(/\n\s+at /);
  });

  it("shows the stack with --verbose", async () => {
    const result = await runCli(["--verbose", "run", "--model", "no-such-model", "x"]);
    expect(result.code).toBe(1);
    expect(withoutNotices(result.stderr)).toMatch(/\n\s+at /);
  });
});
