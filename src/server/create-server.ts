import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { Backend } from "../core/backend.js";
import { checkApiKey } from "./check-api-key.js";
import { checkRequestedModel } from "./check-requested-model.js";
import { answerClientError } from "./client-error-response.js";
import { ConcurrencyLimiter } from "./concurrency-limiter.js";
import { UnauthorizedError } from "./errors/unauthorized-error.js";
import { FirstTokenTimings } from "./first-token-timings.js";
import { toErrorResponse } from "./openai-error-response.js";
import { routeMiss } from "./route-miss.js";
import { registerChatCompletionsRoute } from "./routes/chat-completions-route.js";
import { registerCompletionsRoute } from "./routes/completions-route.js";
import { ServerMetrics } from "./server-metrics.js";

export interface TesseraServerOptions {
  backend: Backend;
  /** Interface to bind; 127.0.0.1 unless told otherwise. */
  host?: string;
  /** Port; 0 picks a free one (default 8080). */
  port?: number;
  /** When set, every /v1 and /metrics request needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Generations run at once (default: the backend's parallel sequences). */
  parallel?: number;
  /** Requests that may wait for a slot; more get 503 (default 32). */
  queue?: number;
  /** Largest request body in bytes (default 16 MiB: room for a few images). */
  maxBodyBytes?: number;
  /** Model name listed by /v1/models and echoed in responses (default: the backend's modelId). */
  modelName?: string;
  /**
   * Other model names requests may ask for (clients written for OpenAI send "gpt-4o" and the like). Any
   * other name is answered 404 `model_not_found`, as OpenAI answers it; a request without one is served.
   */
  aliases?: readonly string[];
  /** Milliseconds a client has to send its whole request; answered 408 after (default 30 s). */
  requestTimeoutMs?: number;
  /** Fastify request logging (default off). */
  logger?: boolean;
  /**
   * Record where each request's first token went, for requests with an `x-tessera-timing-id` header, and
   * answer GET /debug/first-token/<id> (used by `tessera bench ttfb`). Default: on when the environment
   * has TESSERA_SERVE_TIMINGS=1 (how the benchmark starts `tessera serve`), else off.
   */
  firstTokenTimings?: boolean;
}

export interface TesseraServer {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly metrics: ServerMetrics;
  readonly limiter: ConcurrencyLimiter;
  close(): Promise<void>;
}

/** Build the OpenAI-compatible app without listening (for inject() and embedding). */
export function createTesseraApp(options: TesseraServerOptions): {
  app: FastifyInstance;
  metrics: ServerMetrics;
  limiter: ConcurrencyLimiter;
} {
  const timings =
    (options.firstTokenTimings ?? process.env.TESSERA_SERVE_TIMINGS === "1") ? new FirstTokenTimings() : null;
  const { backend } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: maxBodyBytes,
    // Time to receive a whole request (headers and body); the response, however long, is not limited.
    // Guards against clients that open connections and trickle bytes (slowloris).
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    // close() must not wait for clients that keep connections (or slow streams) open.
    forceCloseConnections: true,
    // A `__proto__` or `constructor` key is valid JSON that OpenAI accepts and ignores: drop it (which also
    // keeps it from reaching any object's prototype) rather than refuse the body as "not valid JSON".
    onProtoPoisoning: "remove",
    onConstructorPoisoning: "remove",
    // Requests Node's parser refuses, and URLs with a broken percent escape, get OpenAI-shaped bodies
    // rather than Node's bare "Client Error" or Fastify's FST_ERR_BAD_URL.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, _request, reply) => {
      const answer = toErrorResponse(error, { maxBodyBytes });
      void (reply as FastifyReply).code(answer.status).headers(answer.headers).send(answer.body);
    },
  });
  // The API takes JSON only: a text/plain body (Fastify parses it by default) gets a 415 that says so,
  // not a 400 about a string where an object was expected.
  app.removeContentTypeParser("text/plain");
  const metrics = new ServerMetrics();
  const limiter = new ConcurrencyLimiter(
    options.parallel ?? Math.max(1, backend.capabilities.parallelSequences),
    options.queue ?? 32,
  );
  const modelName = options.modelName ?? backend.modelId;
  const servedModels = [...new Set([modelName, ...(options.aliases ?? [])])];
  const dependencies = {
    limiter,
    metrics,
    modelName,
    servedModels,
    limits: { maxBodyBytes },
    headersOnStart: backend.capabilities.refusesUpFront === true,
    timings,
  };

  // Only with a key: an async hook costs every request a promise and a hop before its route runs.
  const apiKey = checkApiKey(options.apiKey, "apiKey");
  if (apiKey !== undefined) {
    const expected = Buffer.from(apiKey);
    app.addHook("onRequest", async (request) => {
      if (request.url === "/health") return;
      const header = request.headers.authorization ?? "";
      const given = Buffer.from(header.startsWith("Bearer ") ? header.slice(7) : "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new UnauthorizedError();
    });
  }
  app.addHook("onResponse", async (request, reply) => {
    metrics.requests.inc({ route: request.routeOptions.url ?? "unknown", status: String(reply.statusCode) });
  });
  app.setErrorHandler(async (error, _request, reply) => {
    const answer = toErrorResponse(error, dependencies.limits);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const answer = routeMiss(app, request.method, request.url);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });

  timings?.install(app);
  app.get("/health", async () => ({
    status: "ok",
    model: modelName,
    active: limiter.active,
    queued: limiter.waiting,
  }));
  app.get("/metrics", async (_request, reply) => {
    return reply.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  const modelObject = (id: string) => ({ id, object: "model", created: 0, owned_by: "tessera" });
  app.get("/v1/models", async () => ({ object: "list", data: servedModels.map(modelObject) }));
  app.get<{ Params: { model: string } }>("/v1/models/:model", async (request) => {
    checkRequestedModel(request.params.model, servedModels);
    return modelObject(request.params.model);
  });
  registerChatCompletionsRoute(app, backend, dependencies);
  registerCompletionsRoute(app, backend, dependencies);
  return { app, metrics, limiter };
}

/** Start the server; it listens on 127.0.0.1 unless `host` says otherwise. */
export async function startTesseraServer(options: TesseraServerOptions): Promise<TesseraServer> {
  const { app, metrics, limiter } = createTesseraApp(options);
  await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 8080 });
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    app,
    url: `http://${host}:${address.port}`,
    metrics,
    limiter,
    close: () => app.close(),
  };
}
