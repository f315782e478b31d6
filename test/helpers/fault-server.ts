// A loopback HTTP server that plays an OpenAI-compatible chat endpoint and misbehaves on purpose, one way
// per scenario (cases 12-14 of shared/design/bad-inputs.md). The scenario is the first path segment, so
// one server serves every case at once: `${server.url}/crlf/v1` is a base URL that answers with CRLF SSE.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** Everything a scenario can use about the request it answers. */
export interface FaultRequest {
  scenario: string;
  /** How many requests this scenario has answered before this one (0 for the first). */
  attempt: number;
  body: Record<string, unknown>;
  headers: IncomingMessage["headers"];
  /** True once the response's connection closed (finished, or the client went away). */
  responseClosed: boolean;
}

export type FaultScenario = (request: FaultRequest, response: ServerResponse) => Promise<void> | void;

export interface FaultServer {
  /** http://127.0.0.1:PORT; append `/<scenario>/v1` to get a base URL. */
  readonly url: string;
  baseUrl(scenario: string): string;
  /** Requests each scenario received. */
  readonly hits: Map<string, FaultRequest[]>;
  /** Add or replace a scenario (say, one built for a single test). */
  define(name: string, scenario: FaultScenario): void;
  /** Sockets still open (a client that gives up must close its connection). */
  openSockets(): number;
  /** TCP connections accepted so far (a client that reuses connections opens few). */
  connections(): number;
  close(): Promise<void>;
}

const created = 1_700_000_000;

/** One streamed chunk in the OpenAI wire shape. */
export function chunk(
  delta: Record<string, unknown>,
  extra: { finishReason?: string; logprobs?: unknown; usage?: unknown } = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-fault",
    object: "chat.completion.chunk",
    created,
    model: "fault-model",
    choices: [
      {
        index: 0,
        delta,
        finish_reason: extra.finishReason ?? null,
        ...(extra.logprobs === undefined ? {} : { logprobs: extra.logprobs }),
      },
    ],
    ...(extra.usage === undefined ? {} : { usage: extra.usage }),
  };
}

export const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };

/** The well-behaved answer "Hello world" as SSE event payloads (without the [DONE] marker). */
export function helloChunks(): Array<Record<string, unknown>> {
  return [
    chunk({ role: "assistant", content: "" }),
    chunk({ content: "Hello" }),
    chunk({ content: " world" }),
    chunk({}, { finishReason: "stop" }),
    { ...chunk({}), choices: [], usage },
  ];
}

export function completion(text: string): Record<string, unknown> {
  return {
    id: "chatcmpl-fault",
    object: "chat.completion",
    created,
    model: "fault-model",
    choices: [
      { index: 0, message: { role: "assistant", content: text }, finish_reason: "stop", logprobs: null },
    ],
    usage,
  };
}

function startStream(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.flushHeaders();
}

function event(payload: unknown, lineEnd = "\n"): string {
  return `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}${lineEnd}${lineEnd}`;
}

/** A whole well-formed stream: these payloads as events, then [DONE]. */
export function streamEvents(response: ServerResponse, payloads: readonly unknown[], lineEnd = "\n"): void {
  startStream(response);
  for (const payload of payloads) response.write(event(payload, lineEnd));
  response.end(event("[DONE]", lineEnd));
}

/** Wait until the client goes away (a stall that never keeps the process alive after the test). */
async function stall(response: ServerResponse): Promise<void> {
  if (response.destroyed) return;
  await new Promise((resolve) => response.once("close", resolve));
}

function sendError(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify({ error: { message: `fault server: status ${status}`, type: "fault" } }));
}

/** Answers well: streamed or not, as asked. */
async function ok(request: FaultRequest, response: ServerResponse): Promise<void> {
  if (request.body.stream === true) return streamEvents(response, helloChunks());
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(completion("Hello world")));
}

/** Fails the first request of each scenario with `fail`, then answers well. */
function failOnceThenOk(fail: (response: ServerResponse) => void): FaultScenario {
  return (request, response) => (request.attempt === 0 ? fail(response) : ok(request, response));
}

export const scenarios: Record<string, FaultScenario> = {
  ok,
  // Case 12: malformed SSE.
  "unparsable-data": (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    response.end(event("{this is not json"));
  },
  "split-events": async (_request, response) => {
    startStream(response);
    const text =
      helloChunks()
        .map((payload) => event(payload))
        .join("") + event("[DONE]");
    // Cut the byte stream every 7 bytes, across field names, JSON and multi-byte boundaries alike.
    for (let offset = 0; offset < text.length; offset += 7) {
      response.write(text.slice(offset, offset + 7));
      await sleep(1);
    }
    response.end();
  },
  crlf: (_request, response) => streamEvents(response, helloChunks(), "\r\n"),
  comments: (_request, response) => {
    startStream(response);
    response.write(": keep-alive\n\n");
    for (const payload of helloChunks()) response.write(`: ping\n${event(payload)}`);
    response.end(event("[DONE]"));
  },
  "no-done": (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    response.end(event(chunk({ content: " world" })));
  },
  "truncated-json": (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    response.end('data: {"id":"chatcmpl-fault","choices":[{"index":0,"delta":{"content":" wor');
  },
  // Case 13: HTTP faults.
  "rate-limit-retry-after": failOnceThenOk((response) => sendError(response, 429, { "retry-after": "1" })),
  "rate-limit": failOnceThenOk((response) => sendError(response, 429)),
  "always-rate-limited": (_request, response) => sendError(response, 429),
  "server-error-once": failOnceThenOk((response) => sendError(response, 503)),
  "always-server-error": (_request, response) => sendError(response, 500),
  "bad-request": (_request, response) => sendError(response, 400),
  "error-event": (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    response.end(event({ error: { message: "the model crashed", type: "server_error", code: "internal" } }));
  },
  "reset-mid-stream": async (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    await sleep(20);
    response.socket?.destroy();
  },
  "reset-before-response": (_request, response) => {
    response.socket?.destroy();
  },
  "stall-before-headers": async (_request, response) => {
    await stall(response);
  },
  "stall-before-first-byte": async (_request, response) => {
    startStream(response);
    await stall(response);
  },
  "stall-between-chunks": async (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    await stall(response);
  },
  // Case 14: more than asked for.
  "huge-chunk": (_request, response) => {
    startStream(response);
    response.write(event(chunk({ content: "Hello" })));
    response.end(event(chunk({ content: "x".repeat(4 * 1024 * 1024) })));
  },
  "endless-stream": async (_request, response) => {
    startStream(response);
    while (!response.destroyed && !response.writableEnded) {
      // Respect backpressure so the server itself stays bounded while the client reads.
      if (!response.write(event(chunk({ content: "again " })))) {
        await new Promise((resolve) => response.once("drain", resolve));
      }
      await sleep(0);
    }
  },
};

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Start the fault server on 127.0.0.1 and a free port. */
export async function startFaultServer(): Promise<FaultServer> {
  const table = new Map<string, FaultScenario>(Object.entries(scenarios));
  const hits = new Map<string, FaultRequest[]>();
  const sockets = new Set<Socket>();
  const server = createServer(async (request, response) => {
    const scenario = (request.url ?? "/").split("/")[1] ?? "";
    const play = table.get(scenario);
    const body = await readBody(request);
    if (play === undefined) return sendError(response, 404);
    const seen = hits.get(scenario) ?? [];
    hits.set(scenario, seen);
    const faultRequest: FaultRequest = {
      scenario,
      attempt: seen.length,
      body,
      headers: request.headers,
      responseClosed: false,
    };
    response.on("close", () => {
      faultRequest.responseClosed = true;
    });
    seen.push(faultRequest);
    try {
      await play(faultRequest, response);
    } catch {
      response.destroy();
    }
  });
  let connections = 0;
  server.on("connection", (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: (scenario) => `${url}/${scenario}/v1`,
    hits,
    define: (name, scenario) => {
      table.set(name, scenario);
    },
    openSockets: () => sockets.size,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
