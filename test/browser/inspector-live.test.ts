// The live inspector as a person uses it, in headless Chromium: type a prompt, watch tokens stream,
// click a token, see raw next to processed with the removed candidates marked, branch on an alternative
// (a KV fork), compare the branches, re-sample from a token, export a branch and the whole tree.
// Screenshots go to test-artifacts/.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectorServer } from "../../src/inspector/live/inspector-server.js";
import type { InspectorSession } from "../../src/inspector/live/inspector-session.js";
import { launchChromium } from "../cli/support/chromium.js";
import { type LiveInspector, startLiveInspector } from "../inspector/support/live-inspector.js";
import { cspViolations, recordCspViolations } from "./support/csp-violations.js";

const artifacts = join(process.cwd(), "test-artifacts");

// The test's tsconfig has no DOM library: the little of it that the page checks use.
type PageGlobal = {
  document: {
    querySelectorAll(selector: string): { length: number };
    querySelector(selector: string): { textContent: string | null } | null;
    getElementById(id: string): { textContent: string | null } | null;
  };
};

describe("the live inspector page in Chromium", () => {
  let inspector: LiveInspector;
  let session: InspectorSession;
  let server: InspectorServer;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    inspector = await startLiveInspector();
    ({ session, server } = inspector);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
  });

  async function openPage(): Promise<{ page: Page; problems: string[]; foreign: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("request", (request) => {
      if (!request.url().startsWith(`http://127.0.0.1:${server.port}/`)) foreign.push(request.url());
    });
    await recordCspViolations(page);
    await page.goto(server.url);
    return { page, problems, foreign };
  }

  it("streams, shows alternatives, branches by a KV fork, compares and re-samples", async () => {
    const { page, problems, foreign } = await openPage();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as PageGlobal).document.getElementById("sequence-count")?.textContent === "2",
    );
    await page.fill("#prompt", "Once upon a time, in a land far away, there lived");
    await page.fill("#s-temperature", "1");
    // top-k 2: the third raw candidate of every token is removed by top-k.
    await page.fill("#s-topK", "2");
    await page.fill("#s-seed", "5");
    await page.fill("#s-maxTokens", "16");
    await page.click("#generate");
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobal).document.querySelectorAll(".view .token").length === 16,
    );
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobal).document
        .querySelector(".view .stats")
        ?.textContent?.startsWith("done"),
    );
    // Coloured by probability: the background is set per token.
    const colours = await page.$$eval(".view .token", (tokens) =>
      tokens.map(
        (token) => (token as unknown as { style: { backgroundColor: string } }).style.backgroundColor,
      ),
    );
    expect(colours.every((colour) => colour.startsWith("rgb"))).toBe(true);
    await page.screenshot({ path: join(artifacts, "inspector-live-streamed.png"), fullPage: true });

    // Click token 4: its alternatives, raw next to processed; the third raw candidate was removed.
    await page.click('.view .token[data-owner="1"][data-index="4"]');
    const rows = await page.$$eval("#details .alt-row", (elements) =>
      elements.map((row) => ({
        removed: row.classList.contains("removed"),
        chosen: row.classList.contains("chosen"),
        raw: row.querySelector(".alt-raw")!.textContent!,
        processed: row.querySelector(".alt-processed")!.textContent!,
        cut: row.querySelector(".alt-cut")!.textContent!,
      })),
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((row) => !row.removed)).toHaveLength(2);
    expect(rows[2]!.removed).toBe(true);
    expect(rows[2]!.processed).toBe("removed");
    expect(rows[2]!.raw).toMatch(/%$/);
    // The "cut by" label: the native field when the addon records it, "—" when it does not.
    const tree = session.tree();
    const nativeCutBy = tree[0]!.tokens[4]!.removedBy !== undefined;
    expect(rows[2]!.cut).toBe(nativeCutBy ? "top-k" : "—");
    await page.screenshot({ path: join(artifacts, "inspector-live-alternatives.png"), fullPage: true });

    // Branch on the second candidate that is not the chosen token.
    const before = await page.$$eval(".tree-item", (items) => items.length);
    expect(before).toBe(1);
    await page.click("#details button.branch-here");
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobal).document.querySelectorAll(".tree-item").length === 2,
    );
    // The new branch is shown next to its parent, and streams its own tokens after the fork point.
    await page.waitForFunction(
      () =>
        (globalThis as unknown as PageGlobal).document.querySelectorAll(".views.comparing .view").length ===
        2,
    );
    await page.waitForFunction(
      () =>
        (globalThis as unknown as PageGlobal).document
          .querySelector('.view[data-branch="2"] .stats')
          ?.textContent?.startsWith("done") === true,
    );
    const forkTitle = await page.textContent('.view[data-branch="2"] h3');
    expect(forkTitle).toContain("fork of #1 at token 4");
    const own = await page.$$eval('.view[data-branch="2"] .token[data-owner="2"]', (tokens) => tokens.length);
    expect(own).toBe(16);
    expect(await page.$$eval('.view[data-branch="2"] .token.fork-point', (tokens) => tokens.length)).toBe(1);
    // The server copied the parent's cells: the fork's prompt (prompt + 4 tokens + the alternative) was
    // reused but for the alternative itself.
    const fork = session.branch(2);
    expect(fork.parentId).toBe(1);
    await page.screenshot({ path: join(artifacts, "inspector-live-branched.png"), fullPage: true });

    // Re-sample branch 2 from its token 3 with greedy settings.
    await page.click('.view[data-branch="2"] .token[data-owner="2"][data-index="3"]');
    await page.fill("#s-temperature", "0");
    await page.fill("#s-topK", "");
    await page.fill("#s-maxTokens", "6");
    await page.click("#resample");
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobal).document.querySelectorAll(".tree-item").length === 3,
    );
    await page.waitForFunction(
      () =>
        (globalThis as unknown as PageGlobal).document
          .querySelector('.view[data-branch="3"] .stats')
          ?.textContent?.startsWith("done") === true,
    );
    expect(await page.textContent('.view[data-branch="3"] h3')).toContain("re-sample of #2 from token 3");
    expect(await page.textContent(".lru-note")).toContain("least recently used");
    await page.screenshot({ path: join(artifacts, "inspector-live-resampled.png"), fullPage: true });

    // The export links download the tree and the selected branch's static page (same renderer as -o).
    const download = page.waitForEvent("download");
    await page.click("#export-html");
    const file = await (await download).path();
    expect(readFileSync(file, "utf8")).toContain('id="report-data"');
    // …and the whole tree as one static page, every branch in it.
    const treeDownload = page.waitForEvent("download");
    await page.click("#export-tree-html");
    const treeFile = await (await treeDownload).path();
    const treeData = JSON.parse(
      /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(
        readFileSync(treeFile, "utf8"),
      )![1]!,
    );
    expect(treeData.branches.map((branch: { id: number }) => branch.id)).toEqual([1, 2, 3]);

    const violations = await cspViolations(page);
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it("labels a candidate that the page's logit bias banned", async () => {
    const prompt = "Once upon a time, there was";
    const plain = await session.start(prompt, { temperature: 1, seed: 5, maxTokens: 1 });
    const favourite = (await session.settled(plain.id)).tokens[0]!.raw!.top[0]!.token!;
    const { page, problems } = await openPage();
    await page.fill("#prompt", prompt);
    await page.fill("#s-temperature", "1");
    await page.fill("#s-seed", "5");
    await page.fill("#s-maxTokens", "4");
    await page.fill("#s-logitBias", `${favourite}:-inf`);
    await page.click("#generate");
    const id = plain.id + 1;
    await page.waitForFunction(
      (branch) =>
        (globalThis as unknown as PageGlobal).document
          .querySelector(`.view[data-branch="${branch}"] .stats`)
          ?.textContent?.startsWith("done") === true,
      id,
    );
    expect(session.branch(id).settings.logitBias).toEqual({ [favourite]: "-inf" });
    await page.click(`.view[data-branch="${id}"] .token[data-owner="${id}"][data-index="0"]`);
    const row = await page.$eval(`#details .alt-row[data-token="${favourite}"]`, (element) => ({
      removed: element.classList.contains("removed"),
      cut: element.querySelector(".alt-cut")!.textContent!,
    }));
    expect(row.removed).toBe(true);
    const nativeCutBy = session.branch(id).tokens[0]!.removedBy !== undefined;
    expect(row.cut).toBe(nativeCutBy ? "logit-bias" : "—");
    await page.screenshot({ path: join(artifacts, "inspector-live-logit-bias.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
