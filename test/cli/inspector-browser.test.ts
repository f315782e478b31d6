// The inspector page in a real headless Chromium: every token rendered, the raw/processed switch
// recolours them, a click shows the alternatives, nothing is fetched from the network.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInspectorReport, renderInspectorPage } from "../../src/cli/inspector/index.js";
import { sampleTraces } from "./fixtures/sample-traces.js";
import { launchChromium } from "./support/chromium.js";

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
