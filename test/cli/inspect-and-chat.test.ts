// `tessera inspect` and `tessera chat` spawned on the default model (tiny-text), and the page `inspect` writes opened in
// a real headless Chromium: the end-to-end path from llama.cpp's logits to the coloured tokens.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium.js";
import { linesOf, runCli, withoutNotices } from "./support/run-cli.js";

const artifacts = join(process.cwd(), "test-artifacts");
mkdirSync(artifacts, { recursive: true });

function embeddedReport(path: string) {
  const page = readFileSync(path, "utf8");
  return JSON.parse(page.match(/<script type="application\/json" id="report-data">([^<]*)<\/script>/)![1]!);
}

describe("tessera inspect", () => {
  const out = join(artifacts, "inspect-e2e.html");

  it("writes a page with every generated token, raw and processed", async () => {
    const result = await runCli([
      "inspect",
      ...[
        // The random-weight model, not the trained default: its raw distribution is near uniform, so
        // top-k 8 raises every chosen token's probability (a trained model at temperature 0.8 need not).
        "--model",
        "tiny",
        "--threads",
        "1",
        "--seed",
        "5",
        "--ignore-eos",
        "-n",
        "12",
        "-t",
        "0.8",
        "--top-k",
        "8",
        "-k",
        "6",
      ],
      "The capital of France is",
      "--out",
      out,
      "--json",
    ]);
    expect(withoutNotices(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ path: out, tokens: 12, model: "tiny-f32" });
    const report = embeddedReport(out);
    expect(report.tokens).toHaveLength(12);
    expect(report.tokens.map((token: { text: string }) => token.text).join("")).toBe(summary.text);
    for (const token of report.tokens) {
      expect(token.processed.top).toHaveLength(6);
      expect(token.raw.top).toHaveLength(6);
      // top-k 8 cuts the rest of the vocabulary: processed probabilities are far above the raw ones.
      expect(token.processed.logprob).toBeGreaterThan(token.raw.logprob);
      expect(token.raw.entropyBits).toBeGreaterThan(token.processed.entropyBits);
    }
    expect(report.settings).toMatchObject({ temperature: 0.8, topK: 8, seed: 5 });
  });

  // A missing folder is made (and reported) as models make does; one that cannot be made fails in one line.
  it("reports an output folder that cannot be made, in one line", async () => {
    const result = await runCli([
      "inspect",
      "--threads",
      "1",
      "-n",
      "2",
      "x",
      "-o",
      "/proc/nonexistent-folder/page.html",
    ]);
    expect(result.code).toBe(1);
    expect(linesOf(withoutNotices(result.stderr))).toEqual([
      expect.stringMatching(
        /^tessera: Cannot write \/proc\/nonexistent-folder\/page.html: .*pass another --out\.$/,
      ),
    ]);
  });

  it("requires --out", async () => {
    const result = await runCli(["inspect", "x"]);
    expect(result.code).toBe(1);
    expect(linesOf(withoutNotices(result.stderr))).toEqual([
      "tessera: required option '-o, --out <file>' not specified",
    ]);
  });

  describe("its page in Chromium", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("colours the real tokens, switches views, and shows alternatives", async () => {
      const report = embeddedReport(out);
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`file://${out}`);
      expect(await page.$$(".output .token")).toHaveLength(report.tokens.length);
      const colours = () =>
        page.$$eval(".output .token", (elements) => elements.map((element) => element.getAttribute("style")));
      const processed = await colours();
      await page.click('.switch button[data-view="raw"]');
      expect(await colours()).not.toEqual(processed);
      await page.click('.output .token[data-index="4"]');
      expect(await page.$$("#alternatives tr")).not.toHaveLength(0);
      expect(await page.textContent("#details")).toMatch(/rank.*entropy/s);
      await page.screenshot({ path: join(artifacts, "inspect-e2e.png"), fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

describe("tessera chat", () => {
  it("answers one turn per piped line and keeps going after /reset", async () => {
    const result = await runCli(["chat", "--threads", "1", "--seed", "1", "--ignore-eos", "-n", "4"], {
      input: "Hello\nHow are you?\n/reset\nHello\n",
    });
    expect(withoutNotices(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    // An answer may itself hold a newline (tiny-text writes text with line breaks), so the turns are told
    // apart by the /reset marker, not by counting lines.
    const parts = result.stdout.split("(history cleared)\n");
    expect(parts).toHaveLength(2);
    const [before, after] = parts as [string, string];
    expect(after.trim().length).toBeGreaterThan(0);
    // Two answers before the reset, each ended by a newline.
    expect(before.split("\n").length).toBeGreaterThanOrEqual(3);
    // After /reset the same first message with the same seed gives the same answer: the history is gone.
    expect(before.startsWith(after)).toBe(true);
  });

  it("sees the history: the same message answers differently after an earlier turn", async () => {
    const fresh = await runCli(["chat", "--threads", "1", "--seed", "1", "--ignore-eos", "-n", "4"], {
      input: "How are you?\n",
    });
    const afterHello = await runCli(["chat", "--threads", "1", "--seed", "1", "--ignore-eos", "-n", "4"], {
      input: "Hello\nHow are you?\n",
    });
    expect(linesOf(afterHello.stdout)[1]).not.toBe(linesOf(fresh.stdout)[0]);
  });

  it("reports a turn that does not fit and goes on", async () => {
    const result = await runCli(
      ["chat", "--threads", "1", "--seed", "1", "--context-size", "64", "-n", "4"],
      {
        input: `${"word ".repeat(400)}\nHi\n`,
      },
    );
    expect(result.code).toBe(1);
    expect(linesOf(withoutNotices(result.stderr))).toHaveLength(1);
    expect(withoutNotices(result.stderr)).toMatch(/^tessera: Context overflow/);
    // The second turn is answered: its 4 tokens and the newline after them. (tiny-text's 4 characters may
    // be blanks or a line break, so this counts output, not non-blank lines; a seed keeps it one answer.)
    expect(result.stdout.length).toBeGreaterThan(1);
    expect(result.stdout.endsWith("\n")).toBe(true);
  });
});

describe("every command has help with examples", () => {
  for (const command of [
    "run",
    "chat",
    "inspect",
    "bench",
    "bench ttfb",
    "bench throughput",
    "bench strategies",
  ]) {
    it(`tessera ${command} --help`, async () => {
      const result = await runCli([...command.split(" "), "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: tessera ${command}`);
      expect(result.stdout).toContain("Examples:");
    });
  }
});
