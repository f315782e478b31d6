// The live inspector's server over real HTTP on 127.0.0.1 with the real addon and the tiny model: only
// its own Host and Origin with the per-run token get in; the page has a strict nonce CSP; the API starts,
// streams, forks (copying KV cells), re-samples and exports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectorServer } from "../../src/inspector/live/inspector-server.js";
import type { InspectorSession } from "../../src/inspector/live/inspector-session.js";
import { httpRequest } from "./http-request.js";
import { type LiveInspector, startLiveInspector } from "./support/live-inspector.js";

describe("the live inspector server", () => {
  let inspector: LiveInspector;
  let session: InspectorSession;
  let server: InspectorServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    inspector = await startLiveInspector();
    ({ session, server, auth } = inspector);
  });
  afterAll(async () => {
    await inspector?.close();
  });

  it("prints a 127.0.0.1 URL that carries the token", () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(32);
  });

  it("serves its own Host with the token, and refuses the rest", async () => {
    const good = await httpRequest(server.port, `/?token=${server.token}`);
    expect(good.status).toBe(200);
    expect(
      (
        await httpRequest(server.port, `/?token=${server.token}`, {
          headers: { host: `localhost:${server.port}` },
        })
      ).status,
    ).toBe(200);
    // DNS rebinding: a foreign name that resolves to 127.0.0.1 sends its own Host.
    const rebound = await httpRequest(server.port, `/?token=${server.token}`, {
      headers: { host: `evil.example:${server.port}` },
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toContain("Host");
    const otherPort = await httpRequest(server.port, "/api/tree", {
      headers: { ...auth, host: "127.0.0.1:1" },
    });
    expect(otherPort.status).toBe(403);
    // A cross-site page: a foreign Origin, or a browser's Sec-Fetch-Site.
    const foreign = await httpRequest(server.port, "/api/branches", {
      method: "POST",
      headers: { ...auth, origin: "https://evil.example" },
      body: { prompt: "x" },
    });
    expect(foreign.status).toBe(403);
    expect(
      (await httpRequest(server.port, "/api/tree", { headers: { ...auth, "sec-fetch-site": "cross-site" } }))
        .status,
    ).toBe(403);
    expect(
      (
        await httpRequest(server.port, "/api/tree", {
          headers: { ...auth, origin: `http://127.0.0.1:${server.port}` },
        })
      ).status,
    ).toBe(200);
    // The token: missing → 401, wrong → 403, in the header, the query or as a bearer token → 200.
    expect((await httpRequest(server.port, "/")).status).toBe(401);
    expect((await httpRequest(server.port, "/api/tree")).status).toBe(401);
    expect(
      (await httpRequest(server.port, "/api/tree", { headers: { "x-tessera-token": "wrong" } })).status,
    ).toBe(403);
    expect((await httpRequest(server.port, `/api/tree?token=${server.token.slice(1)}x`)).status).toBe(403);
    expect((await httpRequest(server.port, `/api/tree?token=${server.token}`)).status).toBe(200);
    expect(
      (await httpRequest(server.port, "/api/tree", { headers: { authorization: `Bearer ${server.token}` } }))
        .status,
    ).toBe(200);
  });

  it("serves the page under a nonce CSP with no external resource", async () => {
    const page = await httpRequest(server.port, `/?token=${server.token}`);
    const policy = String(page.headers["content-security-policy"]);
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain("unsafe-inline");
    expect(policy).not.toContain("unsafe-eval");
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)![1]!;
    expect(page.body).toContain(`<script nonce="${nonce}">`);
    expect(page.body).toContain(`<style nonce="${nonce}">`);
    expect(page.body).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//);
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    // A new nonce each time.
    const again = await httpRequest(server.port, `/?token=${server.token}`);
    expect(again.headers["content-security-policy"]).not.toBe(policy);
  });

  it("starts, streams, forks, re-samples and exports", async () => {
    const started = await httpRequest(server.port, "/api/branches", {
      method: "POST",
      headers: auth,
      body: {
        prompt: "Once upon a time, in a land far away, there lived",
        settings: { temperature: 0, maxTokens: 12 },
      },
    });
    expect(started.status).toBe(201);
    const root = JSON.parse(started.body).branch;
    const events = await httpRequest(server.port, `/api/branches/${root.id}/events`, { headers: auth });
    expect(events.headers["content-type"]).toContain("text/event-stream");
    const tokens = events.body.split("\n\n").filter((block) => block.startsWith("event: token"));
    expect(tokens).toHaveLength(12);
    expect(events.body).toContain("event: end");
    const first = JSON.parse(tokens[0]!.split("data: ")[1]!);
    expect(first.raw.top.length).toBeGreaterThan(1);
    expect(first.processed.top.length).toBeGreaterThan(0);

    const alternative = first.raw.top.find(
      (candidate: { token: number }) => candidate.token !== first.token,
    ).token;
    const before = (await httpRequest(server.port, "/api/tree", { headers: auth })).body;
    expect(JSON.parse(before).branches).toHaveLength(1);
    const forked = await httpRequest(server.port, `/api/branches/${root.id}/fork`, {
      method: "POST",
      headers: auth,
      body: { atTokenIndex: 6, token: alternative },
    });
    expect(forked.status).toBe(201);
    const fork = JSON.parse(forked.body).branch;
    const forkView = await session.settled(fork.id);
    expect(forkView.tokens).toHaveLength(12);
    expect(forkView.parentId).toBe(root.id);
    expect(forkView.forkToken?.token).toBe(alternative);

    const resampled = await httpRequest(server.port, `/api/branches/${fork.id}/resample`, {
      method: "POST",
      headers: auth,
      body: { atTokenIndex: 3, settings: { temperature: 1.2, topK: 2, seed: 3, maxTokens: 4 } },
    });
    expect(resampled.status).toBe(201);
    const resample = await session.settled(JSON.parse(resampled.body).branch.id);
    expect(resample.tokens).toHaveLength(4);
    // top-k 2: at most two candidates survive in the processed distribution; the raw keeps more.
    expect(
      resample.tokens[0]!.processed!.top.filter((candidate) => candidate.logprob !== null).length,
    ).toBeLessThanOrEqual(2);

    const tree = JSON.parse((await httpRequest(server.port, "/api/export.json", { headers: auth })).body);
    expect(tree.branches.map((branch: { id: number }) => branch.id)).toEqual([root.id, fork.id, resample.id]);
    const page = await httpRequest(server.port, `/api/export.html?branch=${fork.id}`, { headers: auth });
    expect(page.status).toBe(200);
    expect(page.headers["content-disposition"]).toContain("attachment");
    // The static renderer's page with the fork's path: 6 inherited tokens, the alternative, 12 own.
    const report = JSON.parse(
      /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page.body)![1]!,
    );
    expect(report.tokens).toHaveLength(6 + 1 + 12);
    expect(report.tokens[6].token).toBe(alternative);
  });

  it("answers bad requests in the request's field names", async () => {
    const missing = await httpRequest(server.port, "/api/branches", {
      method: "POST",
      headers: auth,
      body: {},
    });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).error.field).toBe("prompt");
    const unknown = await httpRequest(server.port, "/api/branches/99/fork", {
      method: "POST",
      headers: auth,
      body: { atTokenIndex: 0, token: 1 },
    });
    expect(unknown.status).toBe(404);
    const badSetting = await httpRequest(server.port, "/api/branches", {
      method: "POST",
      headers: auth,
      body: { prompt: "x", settings: { topP: 3 } },
    });
    expect(badSetting.status).toBe(400);
    expect(JSON.parse(badSetting.body).error.field).toBe("settings.topP");
  });
});
