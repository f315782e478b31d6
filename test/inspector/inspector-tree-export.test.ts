// The whole branch tree as one static page, over real HTTP with the real addon and the tiny model: a
// root and two forks (one of the other) come back as one self-contained file whose embedded data parse
// back to the tree, each branch with its path drawn by the static renderer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { branchPath } from "../../src/inspector/live/branch-path.js";
import type { InspectorServer } from "../../src/inspector/live/inspector-server.js";
import type { BranchView, InspectorSession } from "../../src/inspector/live/inspector-session.js";
import { httpRequest } from "./http-request.js";
import { type LiveInspector, startLiveInspector } from "./support/live-inspector.js";

const embedded = (html: string) =>
  JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!);

describe("the tree export as one static page", () => {
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

  async function post(path: string, body: unknown): Promise<BranchView> {
    const answer = await httpRequest(server.port, path, { method: "POST", headers: auth, body });
    expect(answer.status).toBe(201);
    return session.settled(JSON.parse(answer.body).branch.id);
  }

  it("holds every branch, its place in the tree and its path", async () => {
    // "</script>", "<!--" and U+2028 in the prompt must neither end the data element nor break the script.
    const prompt = "Once upon a time </script><!-- in a\u2028land far away, there lived";
    const root = await post("/api/branches", { prompt, settings: { temperature: 0, maxTokens: 8 } });
    const alternativeOf = (branch: BranchView, at: number) =>
      branch.tokens[at]!.raw!.top.find((candidate) => candidate.token !== branch.tokens[at]!.token)!.token!;
    const first = await post(`/api/branches/${root.id}/fork`, {
      atTokenIndex: 4,
      token: alternativeOf(root, 4),
    });
    const second = await post(`/api/branches/${first.id}/fork`, {
      atTokenIndex: 2,
      token: alternativeOf(first, 2),
    });

    expect((await httpRequest(server.port, "/api/export/tree.html")).status).toBe(401);
    const page = await httpRequest(server.port, "/api/export/tree.html", { headers: auth });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.headers["content-disposition"]).toContain('filename="inspector-tree.html"');
    // Self-contained: its own CSP forbids everything but inline code, and it names no external resource.
    expect(page.body).toContain("default-src 'none'");
    expect(page.body).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//);
    expect(page.body.match(/<\/script>/g)).toHaveLength(2);
    expect(page.body).not.toContain("\u2028");

    const data = embedded(page.body);
    const tree = session.tree();
    const byId = new Map(tree.map((branch) => [branch.id, branch] as const));
    expect(data.modelId).toBe("tiny");
    expect(data.branches.map((branch: { id: number }) => branch.id)).toEqual([root.id, first.id, second.id]);
    for (const [position, branch] of tree.entries()) {
      const exported = data.branches[position];
      expect(exported).toMatchObject({
        id: branch.id,
        parentId: branch.parentId,
        atTokenIndex: branch.atTokenIndex,
        kind: branch.kind,
        forkToken: branch.forkToken,
        prompt,
        status: "done",
        ownTokens: branch.tokens.length,
        settings: { temperature: 0 },
        samplerChain: expect.stringContaining("greedy"),
      });
      expect(exported.tokens).toEqual(JSON.parse(JSON.stringify(branchPath(byId, branch.id))));
    }
    // The second fork's path: 4 of the root's tokens, an alternative, 2 of the first fork's, another.
    expect(data.branches[2].tokens).toHaveLength(4 + 1 + 2 + 1 + second.tokens.length);
    expect(data.branches[2].tokens[7].token).toBe(second.forkToken!.token);
  });
});
