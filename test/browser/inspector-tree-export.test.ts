// The exported branch tree as a person opens it: the downloaded file from disk (file://), JavaScript on,
// no server behind it. The tree is the navigation; picking the second branch draws its path with the
// static renderer (colours, raw and processed alternatives, "cut by" marks), under the page's own
// strict CSP, fetching nothing. Screenshots go to test-artifacts/.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { branchPath } from "../../src/inspector/live/branch-path.js";
import type { InspectorServer } from "../../src/inspector/live/inspector-server.js";
import type { InspectorSession } from "../../src/inspector/live/inspector-session.js";
import { launchChromium } from "../cli/support/chromium.js";
import { httpRequest } from "../inspector/http-request.js";
import { type LiveInspector, startLiveInspector } from "../inspector/support/live-inspector.js";
import { cspViolations, recordCspViolations } from "./support/csp-violations.js";

const artifacts = join(process.cwd(), "test-artifacts");

describe("the exported tree page in Chromium", () => {
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

  it("switches between branches offline, with no CSP violation", async () => {
    // top-k 2: every token's third raw candidate is removed by top-k.
    const settings = { temperature: 1, topK: 2, seed: 5, maxTokens: 10 };
    const root = await session.settled(
      (await session.start("Once upon a time, in a land far away, there lived", settings)).id,
    );
    const third = root.tokens[3]!.raw!.top[2]!.token!;
    const first = await session.settled((await session.fork(root.id, 3, third, undefined)).id);
    const second = await session.settled(
      (await session.fork(first.id, 2, first.tokens[2]!.raw!.top[1]!.token!, undefined)).id,
    );
    const exported = await httpRequest(server.port, "/api/export/tree.html", {
      headers: { "x-tessera-token": server.token },
    });
    expect(exported.status).toBe(200);
    const file = join(artifacts, "inspector-tree.html");
    writeFileSync(file, exported.body);
    await server.close(); // the file stands alone

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) foreign.push(request.url());
    });
    await recordCspViolations(page);
    await page.goto(`file://${file}`);

    // The tree as navigation: the second fork nested under the first, under the root.
    expect(
      await page.$$eval("button.branch", (buttons) => buttons.map((button) => button.dataset.branch)),
    ).toEqual([root.id, first.id, second.id].map(String));
    expect(
      await page
        .locator(`li:has(> button[data-branch="${first.id}"]) button[data-branch="${second.id}"]`)
        .count(),
    ).toBe(1);
    expect(await page.getAttribute(`button[data-branch="${root.id}"]`, "aria-current")).toBe("true");
    const texts = () => page.$$eval(".output .token", (tokens) => tokens.map((token) => token.textContent));
    expect(await texts()).toHaveLength(root.tokens.length);

    await page.click(`button[data-branch="${first.id}"]`);
    expect(await page.getAttribute(`button[data-branch="${first.id}"]`, "aria-current")).toBe("true");
    const path = branchPath(new Map(session.tree().map((branch) => [branch.id, branch] as const)), first.id);
    expect(path).toHaveLength(3 + 1 + first.tokens.length);
    expect((await texts()).map((text) => text!.replace(/↵/g, "").replace(/^∅$/, ""))).toEqual(
      path.map((token) => token.text),
    );
    expect(await page.textContent("#meta")).toContain(`branch ${first.id}`);
    // The alternative placed at the fork point, and the first token's candidates with the cut marks.
    await page.click('.output .token[data-index="3"]');
    expect(await page.textContent("#chosen-token")).toBeTruthy();
    await page.click('.output .token[data-index="0"]');
    const processedCells = await page.$$eval("#alternatives tr td:nth-child(4)", (cells) =>
      cells.map((cell) => cell.textContent),
    );
    const cutMark = path[0]!.removedBy === undefined ? "cut" : "cut by top-k";
    expect(processedCells).toContain(cutMark);
    await page.screenshot({ path: join(artifacts, "inspector-tree-second-branch.png"), fullPage: true });

    // The raw view recolours the same path.
    await page.click('.switch button[data-view="raw"]');
    expect(await page.getAttribute('.switch button[data-view="raw"]', "aria-pressed")).toBe("true");
    // A link to one branch opens it.
    await page.goto(`file://${file}#branch-${second.id}`);
    expect(await page.getAttribute(`button[data-branch="${second.id}"]`, "aria-current")).toBe("true");
    expect(await texts()).toHaveLength(3 + 1 + 2 + 1 + second.tokens.length);

    const violations = await cspViolations(page);
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });
});
