// The live inspector's API at its edges, over real HTTP with the real addon: forks started together, a
// prompt or a fork that does not fit the context (400 naming the field, and the server still answers),
// a re-sample that keeps its branch's settings, a fork after the last token in the export, strict ids,
// and the grammar and logit-bias settings. Every request is bounded, so a hang fails the test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectorServer } from "../../src/inspector/live/inspector-server.js";
import type { InspectorSession } from "../../src/inspector/live/inspector-session.js";
import { type Answer, httpRequest } from "./http-request.js";
import { type LiveInspector, startLiveInspector } from "./support/live-inspector.js";

function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("the live inspector API at its edges", () => {
  let inspector: LiveInspector;
  let session: InspectorSession;
  let server: InspectorServer;
  let auth: Record<string, string>;
  const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
    within(httpRequest(server.port, path, { method, headers: auth, body }), `${method} ${path}`);
  const settled = (id: number) => within(session.settled(id), `branch ${id}`, 60_000);
  const startRoot = async (prompt: string, settings: Record<string, unknown>) => {
    const answer = await call("POST", "/api/branches", { prompt, settings });
    expect(answer.status).toBe(201);
    return settled(JSON.parse(answer.body).branch.id);
  };

  beforeAll(async () => {
    inspector = await startLiveInspector(256);
    ({ session, server, auth } = inspector);
  });
  afterAll(async () => {
    await inspector?.close();
  });

  it("runs two forks requested together", async () => {
    const root = await startRoot("Once upon a time, in a land far away, there lived", {
      temperature: 0,
      maxTokens: 12,
    });
    const answers = await Promise.all(
      [1, 5].map((at) =>
        call("POST", `/api/branches/${root.id}/fork`, {
          atTokenIndex: at,
          token: root.tokens[at]!.token! + 1,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const forks = await Promise.all(answers.map((answer) => settled(JSON.parse(answer.body).branch.id)));
    expect(forks.map((fork) => fork.status)).toEqual(["done", "done"]);
  }, 60_000);

  it("refuses a prompt longer than a sequence with 400 naming prompt, and keeps answering", async () => {
    const big = await call("POST", "/api/branches", {
      prompt: "word ".repeat(600),
      settings: { maxTokens: 2 },
    });
    expect(big.status).toBe(400);
    expect(JSON.parse(big.body).error.field).toBe("prompt");
    const small = await startRoot("hello", { temperature: 0, maxTokens: 3 });
    expect(small.tokens).toHaveLength(3);
  }, 60_000);

  it("refuses a fork after the last token of a full sequence with 400 naming atTokenIndex", async () => {
    const full = await startRoot("Hello world", { temperature: 0, maxTokens: 4096 });
    expect(full.finishReason).toBe("length");
    const past = await call("POST", `/api/branches/${full.id}/fork`, {
      atTokenIndex: full.tokens.length,
      token: 5,
    });
    expect(past.status).toBe(400);
    expect(JSON.parse(past.body).error.field).toBe("atTokenIndex");
    const ordinary = await call("POST", `/api/branches/${full.id}/fork`, { atTokenIndex: 2, token: 5 });
    expect(ordinary.status).toBe(201);
    await settled(JSON.parse(ordinary.body).branch.id);
  }, 90_000);

  it("re-samples with the branch's own settings when none are sent", async () => {
    const settings = { temperature: 0.7, topK: 3, seed: 11, maxTokens: 3 };
    const root = await startRoot("Once upon a time", settings);
    const answer = await call("POST", `/api/branches/${root.id}/resample`, { atTokenIndex: 1 });
    expect(answer.status).toBe(201);
    expect((await settled(JSON.parse(answer.body).branch.id)).settings).toEqual(settings);
  }, 60_000);

  it("keeps a fork's token in its path when it forks after the parent's last token", async () => {
    const root = await startRoot("Once upon a time", { temperature: 0, maxTokens: 5 });
    const answer = await call("POST", `/api/branches/${root.id}/fork`, { atTokenIndex: 5, token: 1234 });
    const fork = await settled(JSON.parse(answer.body).branch.id);
    const page = await call("GET", `/api/export.html?branch=${fork.id}`);
    const report = JSON.parse(
      /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page.body)![1]!,
    );
    expect(report.tokens).toHaveLength(5 + 1 + fork.tokens.length);
    expect(report.tokens[5].token).toBe(1234);
  }, 60_000);

  it("takes branch ids as plain integers only", async () => {
    for (const id of ["1e0", "0x1", "01", "1.0", " 1"]) {
      const answer = await call("GET", `/api/branches/${encodeURIComponent(id)}`);
      expect(answer.status, id).toBe(400);
      expect(JSON.parse(answer.body).error.field, id).toBe("branchId");
    }
    const exported = await call("GET", "/api/export.html?branch=0x1");
    expect(exported.status).toBe(400);
    expect(JSON.parse(exported.body).error.field).toBe("branch");
    expect((await call("GET", "/api/branches/999")).status).toBe(404);
  });

  it("takes a grammar and a logit bias, checked in the request's field names", async () => {
    const settings = { temperature: 1, seed: 5, maxTokens: 3 };
    const root = await startRoot("Once upon a time", settings);
    const favourite = root.tokens[0]!.raw!.top[0]!.token!;
    // "-inf" bans it (JSON has no -Infinity); a finite bias would only move it.
    const biased = await startRoot("Once upon a time", { ...settings, logitBias: { [favourite]: "-inf" } });
    expect(biased.tokens[0]!.token).not.toBe(favourite);
    expect(biased.tokens[0]!.removedBy?.[String(favourite)]).toBe("logit-bias");
    const grammar = await startRoot("Once upon a time", {
      temperature: 0,
      maxTokens: 4,
      grammar: 'root ::= "ab" [a-z]*',
    });
    expect(grammar.status).toBe("done");
    expect(grammar.tokens.map((token) => token.text).join("")).toMatch(/^ab/);
    const badKey = await call("POST", "/api/branches", {
      prompt: "x",
      settings: { logitBias: { nope: 1 } },
    });
    expect(badKey.status).toBe(400);
    expect(JSON.parse(badKey.body).error.field).toMatch(/^settings\.logitBias/);
    const badGrammar = await call("POST", "/api/branches", {
      prompt: "x",
      settings: { grammar: "root ::= (" },
    });
    expect(badGrammar.status).toBe(400);
    expect(JSON.parse(badGrammar.body).error.field).toBe("settings.grammar");
  }, 60_000);
});
