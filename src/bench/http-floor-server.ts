// The "HTTP floor" row's server, run as a child process: node:http and nothing else. It loads no model;
// each POST to /v1/completions or /v1/chat/completions has its JSON body read and parsed (as any server
// must), then gets one fixed text event and [DONE] at once. Its first token is what reaching a Node
// server on this machine and reading its first event back costs the benchmark's client, a cost every
// served first token pays on top of its generation: the part of "what serve adds over in-process" that
// no server code can remove.
// Usage: node dist/bench/http-floor-server.js <port>
import { createServer, type ServerResponse } from "node:http";

const floorText = "floor";
/** tessera serve's default body limit: a floor that read any size would not be doing a server's work. */
const maxBodyBytes = 16 * 1024 * 1024;
const routes = new Set(["/v1/completions", "/v1/chat/completions"]);

const portText = process.argv[2] ?? "";
const port = Number(portText);
if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
  console.error(`usage: node http-floor-server.js <port> (1-65535); got ${JSON.stringify(process.argv[2])}`);
  process.exit(2);
}

function answer(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
}

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/health") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"status":"ok"}');
    return;
  }
  if (request.method !== "POST" || !routes.has(request.url ?? "")) {
    answer(
      response,
      404,
      `no route ${request.method} ${request.url}: the floor answers POST ${[...routes].join(" and ")}`,
    );
    return;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  request.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBodyBytes) {
      answer(response, 413, `the body is over ${maxBodyBytes} bytes`);
      request.destroy();
      return;
    }
    chunks.push(chunk);
  });
  request.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      answer(response, 400, "the body is not JSON");
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const choice = { index: 0, text: floorText, delta: { content: floorText }, finish_reason: null };
    response.write(`data: ${JSON.stringify({ object: "text_completion", choices: [choice] })}\n\n`);
    response.end("data: [DONE]\n\n");
  });
});
server.once("error", (error: NodeJS.ErrnoException) => {
  console.error(`could not listen on 127.0.0.1:${port}: ${error.code ?? error.message}; pick another port`);
  process.exit(1);
});
server.listen(port, "127.0.0.1");
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    process.exit(0);
  });
}
