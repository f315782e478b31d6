// The inspector page in a real headless Chromium: every token rendered, the raw/processed switch
// recolours them, a click shows the alternatives, nothing is fetched from the network.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInspectorReport, renderInspectorPage } from "../../src/inspector/index.js";
import { sampleTraces } from "./fixtures/sample-traces.js";
import { launchChromium } from "./support/chromium.js";
import { runCli } from "./support/run-cli.js";

const artifacts = join(process.cwd(), "test-artifacts");

async function openPage(browser: Browser, html: string, name: string) {
  mkdirSync(artifacts, { recursive: true });
  const file = join(artifacts, `${name}.html`);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith("file:")) requests.push(request.url());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  await page.goto(`file://${file}`);
  return { page, requests, problems };
}

// The test's tsconfig has no DOM library; this is the one browser global the page checks need.
type BrowserWindow = { getComputedStyle(element: unknown): { backgroundColor: string } };
type BorderWindow = {
  getComputedStyle(element: unknown): {
    backgroundColor: string;
    borderRightWidth: string;
    borderRightColor: string;
    borderRightStyle: string;
  };
};

const backgrounds = (page: Page) =>
  page.$$eval(".output .token", (elements) =>
    elements.map(
      (element) => (globalThis as unknown as BrowserWindow).getComputedStyle(element).backgroundColor,
    ),
  );

describe("the inspector page in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("renders every token, recolours on the switch and shows alternatives on click", async () => {
    const { raw, processed } = sampleTraces(24);
    const report = buildInspectorReport({
      modelId: "fixture-12-words",
      prompt: "Tell me about </script> cats",
      raw,
      processed,
      settings: { temperature: 0.7, topK: 3, seed: 1 },
      generatedAt: new Date("2026-11-29T20:00:00Z"),
    });
    const { page, requests, problems } = await openPage(
      browser,
      renderInspectorPage(report),
      "inspector-fixture",
    );

    const texts = await page.$$eval(".output .token", (elements) =>
      elements.map((element) => element.textContent),
    );
    expect(texts).toHaveLength(24);
    expect(texts.map((text) => text!.replace("↵", "")).join("")).toBe(
      report.tokens.map((token) => token.text).join(""),
    );
    expect(await page.textContent("#prompt")).toBe("Tell me about </script> cats");

    const processedColours = await backgrounds(page);
    await page.click('.switch button[data-view="raw"]');
    expect(await page.getAttribute('.switch button[data-view="raw"]', "aria-pressed")).toBe("true");
    const rawColours = await backgrounds(page);
    expect(rawColours).not.toEqual(processedColours);
    await page.click('.switch button[data-view="processed"]');
    expect(await backgrounds(page)).toEqual(processedColours);

    await page.click('.output .token[data-index="2"]');
    expect(await page.textContent("#chosen-token")).toBe("·sat");
    const rows = await page.$$eval("#alternatives tr", (elements) =>
      elements.slice(1).map((row) => [...row.children].map((cell) => cell.textContent)),
    );
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const chosenRow = await page.$eval("#alternatives tr.is-chosen", (row) => row.children[1]!.textContent);
    expect(chosenRow).toBe("·sat");
    // Two of the processed alternatives are cut by top-3: the table says so.
    expect(rows.some((cells) => cells[3] === "cut")).toBe(true);
    expect(await page.textContent("#details")).toMatch(/entropy/);
    expect(await page.$$("#chart circle")).toHaveLength(24);
    expect(await page.$("#chart-cursor")).not.toBeNull();

    await page.screenshot({ path: join(artifacts, "inspector-fixture.png"), fullPage: true });
    expect(requests).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("gives the chosen token its own processed probability and numbers the rows without gaps", async () => {
    // The chosen token " sat" is in the raw top list but the processed list left it out (a penalty
    // pushed it to rank 3): its processed probability is still known from the token itself.
    const { raw, processed } = sampleTraces(24);
    const report = buildInspectorReport({ modelId: "m", prompt: "p", raw, processed, settings: {} });
    const token = report.tokens[2]! as unknown as {
      text: string;
      token: number;
      processed: {
        logprob: number;
        rank: number | null;
        top: { token: number | null; logprob: number | null }[];
      };
    };
    expect(token.text).toBe(" sat");
    token.processed.top = token.processed.top.filter((alternative) => alternative.token !== token.token);
    token.processed.top = token.processed.top.filter((alternative) => alternative.logprob !== null);
    token.processed.rank = token.processed.top.length + 1;
    const { page, problems } = await openPage(browser, renderInspectorPage(report), "inspector-chosen-row");
    await page.click('.output .token[data-index="2"]');
    await page.screenshot({ path: join(artifacts, "inspector-chosen-row.png"), fullPage: true });
    const rows = await page.$$eval("#alternatives tr", (elements) =>
      elements.slice(1).map((row) => [...row.children].map((cell) => cell.textContent)),
    );
    const chosen = await page.$eval("#alternatives tr.is-chosen", (row) =>
      [...row.children].map((cell) => cell.textContent),
    );
    expect(chosen[1]).toBe("·sat");
    expect(chosen[3]).not.toBe("—");
    expect(chosen[3]).toMatch(/\d/);
    // The chosen token ranks right after the processed list: it is numbered, and no number is skipped.
    const numbers = rows.map((cells) => cells[0]).filter((cell) => /^\d+$/.test(cell ?? ""));
    expect(numbers).toEqual(numbers.map((_, index) => String(index + 1)));
    expect(chosen[0]).toBe(String(token.processed.top.length + 1));
    expect(problems).toEqual([]);
    await page.close();
  });

  describe("a page from the real command explains itself", () => {
    // `tessera inspect` on the tiny model with top-k 3 and 5 alternatives: processed keeps 3 tokens.
    let page: Page;
    let problems: string[];
    beforeAll(async () => {
      mkdirSync(artifacts, { recursive: true });
      const out = join(artifacts, "inspector-cli.html");
      const result = await runCli([
        "inspect",
        ...["--threads", "1", "-n", "8", "-t", "0.8", "--top-k", "3", "-k", "5", "--seed", "1"],
        ...["-o", out, "Tell me about cats"],
      ]);
      expect(result.code, result.stderr).toBe(0);
      const opened = await openPage(browser, readFileSync(out, "utf8"), "inspector-cli");
      page = opened.page;
      problems = opened.problems;
    });
    afterAll(() => page?.close());

    it("shows a hint in the details panel on load", async () => {
      await page.screenshot({ path: join(artifacts, "inspector-cli-load.png"), fullPage: true });
      expect(await page.isVisible("#details .hint")).toBe(true);
      expect(await page.textContent("#details .hint")).toMatch(/^Click a token/);
    });

    it("defines raw and processed, naming the sampler chain used", async () => {
      const legend = (await page.textContent("#view-legend"))!.replace(/\s+/g, " ");
      expect(legend).toMatch(/Raw: the model's own probabilities/);
      expect(legend).toMatch(
        /Processed: after the sampler chain top-k 3 → temperature 0\.8 → random draw \(seed 1\)/,
      );
    });

    it("draws a visible boundary around every token", async () => {
      const borders = await page.$$eval(".output .token", (elements) =>
        elements.map((element) => {
          const style = (globalThis as unknown as BorderWindow).getComputedStyle(element);
          return {
            width: style.borderRightWidth,
            colour: style.borderRightColor,
            style: style.borderRightStyle,
          };
        }),
      );
      expect(borders.length).toBe(8);
      for (const border of borders) {
        expect(Number.parseFloat(border.width)).toBeGreaterThanOrEqual(1);
        expect(border.style).toBe("solid");
        expect(border.colour).not.toMatch(/rgba\(.*, 0\)|transparent/);
      }
    });

    it("labels the colour scale with probabilities, and p = 0.05 is not green", async () => {
      const ticks = await page.$$eval("#scale .tick", (elements) =>
        elements.map((element) => ({
          label: element.textContent,
          colour: (globalThis as unknown as BorderWindow).getComputedStyle(element.querySelector(".swatch")!)
            .backgroundColor,
        })),
      );
      expect(ticks.map((tick) => tick.label)).toEqual(["0.0001", "0.001", "0.01", "0.05", "0.1", "0.5", "1"]);
      const [red, green, blue] = ticks[3]!.colour.match(/\d+/g)!.map(Number) as [number, number, number];
      // Not green: green must not dominate red (an orange or amber has red ≥ green).
      expect(red).toBeGreaterThanOrEqual(green);
      expect(blue).toBeLessThan(green);
      const [firstRed, firstGreen] = ticks[0]!.colour.match(/\d+/g)!.map(Number) as [number, number];
      const [lastRed, lastGreen] = ticks[6]!.colour.match(/\d+/g)!.map(Number) as [number, number];
      expect(firstRed).toBeGreaterThan(firstGreen);
      expect(lastGreen).toBeGreaterThan(lastRed);
    });

    it("says cut for an alternative the sampler removed", async () => {
      await page.click('.output .token[data-index="0"]');
      await page.screenshot({ path: join(artifacts, "inspector-cli-clicked.png"), fullPage: true });
      const rows = await page.$$eval("#alternatives tr", (elements) =>
        elements.slice(1).map((row) => [...row.children].map((cell) => cell.textContent)),
      );
      // 5 raw alternatives, of which top-k 3 kept 3: the other 2 are cut in the processed column.
      expect(rows.length).toBeGreaterThanOrEqual(5);
      expect(rows.filter((cells) => cells[3] === "cut").length).toBeGreaterThanOrEqual(2);
      expect(rows.some((cells) => cells[3] === "—")).toBe(false);
      expect(problems).toEqual([]);
    });
  });

  it("works with only raw logits (the processed switch is disabled)", async () => {
    const { raw } = sampleTraces(5, { full: true });
    const report = buildInspectorReport({ modelId: "m", prompt: "p", raw, processed: null });
    const { page, problems } = await openPage(browser, renderInspectorPage(report), "inspector-raw-only");
    expect(await page.$$(".output .token")).toHaveLength(5);
    expect(await page.isDisabled('.switch button[data-view="processed"]')).toBe(true);
    expect(await page.getAttribute('.switch button[data-view="raw"]', "aria-pressed")).toBe("true");
    await page.click('.output .token[data-index="0"]');
    expect(await page.textContent("#details")).toMatch(/bits/);
    expect(problems).toEqual([]);
    await page.close();
  });
});
