// `tessera inspect --serve`: the live inspector page and its JSON/SSE API (docs/inspector.md), on
// 127.0.0.1 only. Every request passes request-guard.ts first; the page runs under a nonce-based
// Content-Security-Policy with no external resource of any kind.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { z } from "zod";
import { InspectorRequestError } from "../errors/inspector-request-error.js";
import { InspectorTreeTooLargeError } from "../errors/inspector-tree-too-large-error.js";
import { renderInspectorPage, renderInspectorTreePage } from "../render-inspector-page.js";
import { branchSettingsShown, buildInspectorTreeReport } from "./branch-export.js";
import { branchPath } from "./branch-path.js";
import type { BranchEvent, BranchView, InspectorSession } from "./inspector-session.js";
import { liveAlternatives, samplerSettingsSchema } from "./inspector-settings.js";
import { guardRequest } from "./request-guard.js";

export interface InspectorServerOptions {
  readonly session: InspectorSession;
  /** 0 picks a free port. */
  readonly port?: number;
  /** The per-run token; random (24 bytes, base64url) when not given. */
  readonly token?: string;
}

export interface InspectorServer {
  /** The page's address with the token: what `inspect --serve` prints. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const startSchema = z
  .object({ prompt: z.string().min(1).max(100_000), settings: samplerSettingsSchema.default({}) })
  .strict();
const forkSchema = z
  .object({ atTokenIndex: z.number().int().min(0), token: z.number().int().min(0) })
  .strict();
// No default for settings: absent, the re-sample keeps its branch's own settings.
const resampleSchema = z
  .object({ atTokenIndex: z.number().int().min(0), settings: samplerSettingsSchema.optional() })
  .strict();

let pageTemplate: string | undefined;
function livePage(nonce: string): string {
  pageTemplate ??= readFileSync(new URL("./live-inspector-page.html", import.meta.url), "utf8");
  return pageTemplate.replaceAll("__NONCE__", nonce);
}

/** No external resource, no inline code but the page's own nonce'd script and style, no framing. */
export function pageContentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || (issue.code === "unrecognized_keys" ? issue.keys.join(", ") : "body");
  throw new InspectorRequestError(field, issue.message);
}

/** A branch id as written in a path or query: digits only ("1e0", "0x1", "01" are not ids). */
function parseBranchId(text: string | undefined, field: string): number {
  if (text === undefined || !/^[1-9][0-9]{0,8}$/.test(text))
    throw new InspectorRequestError(field, "a branch id is a positive integer written in plain digits");
  return Number(text);
}

function branchId(request: FastifyRequest): number {
  return parseBranchId((request.params as { id: string }).id, "branchId");
}

export async function startInspectorServer(options: InspectorServerOptions): Promise<InspectorServer> {
  const { session } = options;
  const token = options.token ?? randomBytes(24).toString("base64url");
  const app = Fastify({ logger: false, bodyLimit: 1 << 20 });
  let port = 0;

  app.addHook("onRequest", async (request, reply) => {
    // The token is in the page's URL: never send it on as a Referer, never cache what it unlocked.
    reply.header("Referrer-Policy", "no-referrer");
    reply.header("Cache-Control", "no-store");
    reply.header("X-Content-Type-Options", "nosniff");
    reply.header("X-Frame-Options", "DENY");
    reply.header("Cross-Origin-Resource-Policy", "same-origin");
    const refusal = guardRequest(request, port, token);
    if (refusal !== undefined)
      return reply.code(refusal.status).send({ error: { message: refusal.message } });
  });

  app.setErrorHandler((error, _request, reply) => {
    if (InspectorTreeTooLargeError.isInstance(error)) {
      return reply.code(413).send({ error: { message: error.message } });
    }
    if (InspectorRequestError.isInstance(error)) {
      return reply.code(error.status).send({ error: { message: error.message, field: error.field } });
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ error: { message: (error as Error).message } });
    }
    return reply
      .code(500)
      .send({ error: { message: error instanceof Error ? error.message : String(error) } });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { message: `no route ${request.method} ${request.url.split("?")[0]}` } }),
  );

  app.get("/", async (_request, reply) => {
    const nonce = randomBytes(18).toString("base64");
    reply.header("Content-Security-Policy", pageContentSecurityPolicy(nonce));
    return reply.type("text/html; charset=utf-8").send(livePage(nonce));
  });

  app.get("/api/info", async () => ({
    model: session.modelId,
    sequences: session.sequences,
    alternatives: liveAlternatives,
  }));
  app.get("/api/tree", async () => ({ branches: session.tree() }));
  app.post("/api/branches", async (request, reply) => {
    const { prompt, settings } = parse(startSchema, request.body);
    return reply.code(201).send({ branch: await session.start(prompt, settings) });
  });
  app.get("/api/branches/:id", async (request) => ({ branch: session.branch(branchId(request)) }));
  app.post("/api/branches/:id/fork", async (request, reply) => {
    const { atTokenIndex, token: chosen } = parse(forkSchema, request.body);
    return reply
      .code(201)
      .send({ branch: await session.fork(branchId(request), atTokenIndex, chosen, undefined) });
  });
  app.post("/api/branches/:id/resample", async (request, reply) => {
    const { atTokenIndex, settings } = parse(resampleSchema, request.body);
    return reply
      .code(201)
      .send({ branch: await session.fork(branchId(request), atTokenIndex, undefined, settings) });
  });
  app.get("/api/branches/:id/events", (request, reply) =>
    streamEvents(session, branchId(request), request, reply),
  );

  const treeMap = () => new Map(session.tree().map((branch) => [branch.id, branch] as const));
  app.get("/api/export.json", async (_request, reply) => {
    reply.header("Content-Disposition", 'attachment; filename="inspector-tree.json"');
    return { model: session.modelId, exportedAt: new Date().toISOString(), branches: session.tree() };
  });
  app.get("/api/export.html", async (request, reply) => {
    const branch = session.branch(
      parseBranchId((request.query as { branch?: string }).branch ?? "1", "branch"),
    );
    const { settings, samplerChain } = branchSettingsShown(branch);
    const html = renderInspectorPage({
      title: `Tessera logits inspector — branch ${branch.id}`,
      modelId: session.modelId,
      prompt: branch.prompt,
      settings: { branch: branch.id, ...settings },
      samplerChain,
      generatedAt: new Date().toISOString(),
      topK: liveAlternatives,
      tokens: branchPath(treeMap(), branch.id),
    });
    // The static page carries its own CSP (inline code, nothing else); it is a download, not a page here.
    reply.header("Content-Disposition", `attachment; filename="inspector-branch-${branch.id}.html"`);
    return reply.type("text/html; charset=utf-8").send(html);
  });
  app.get("/api/export/tree.html", async (_request, reply) => {
    const html = renderInspectorTreePage(
      buildInspectorTreeReport({ modelId: session.modelId, branches: session.tree() }),
    );
    reply.header("Content-Disposition", 'attachment; filename="inspector-tree.html"');
    return reply.type("text/html; charset=utf-8").send(html);
  });

  await app.listen({ host: "127.0.0.1", port: options.port ?? 0 });
  port = (app.server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      await app.close();
    },
  };
}

function streamEvents(
  session: InspectorSession,
  id: number,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  session.branch(id); // a missing branch is a 404 before the stream starts
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    Connection: "keep-alive",
  });
  const send = (event: BranchEvent) => {
    const name = event.type;
    const data = event.type === "token" ? event.token : (event.branch satisfies BranchView);
    response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    if (event.type === "end") response.end();
  };
  const unsubscribe = session.subscribe(id, send);
  request.raw.on("close", unsubscribe);
}
