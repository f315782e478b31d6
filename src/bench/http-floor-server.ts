// The "HTTP floor" row's server, run as a child process: node:http and nothing else. It loads no model;
// each POST to /v1/completions or /v1/chat/completions reads and parses its JSON body (as any server
// must), then streams one fixed text event and [DONE] at once. Its first token is what reaching a Node
// server on this machine and reading its first event back costs the benchmark's client, a cost every
// served first token pays on top of its generation: the part of "what serve adds over in-process" that
// no server code can remove.
// Usage: node dist/bench/http-floor-server.js <port>
import { createServer } from "node:http";

const floorText = "floor";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`usage: node http-floor-server.js <port> (1-65535); got ${JSON.stringify(process.argv[2])}`);
  process.exit(2);
}
const server = createServer((request, response) => {
  if (request.method !== "POST") {
    response.writeHead(request.url === "/health" ? 200 : 404, { "content-type": "application/json" });
    response.end(request.url === "/health" ? '{"status":"ok"}' : '{"error":{"message":"not found"}}');
    return;
  }
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => {
    body += chunk;
  });
  request.on("end", () => {
    try {
      JSON.parse(body);
    } catch {
      response.writeHead(400, { "content-type": "application/json" });
      response.end('{"error":{"message":"the body is not JSON","type":"invalid_request_error"}}');
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const choice = { index: 0, text: floorText, delta: { content: floorText }, finish_reason: null };
    response.write(`data: ${JSON.stringify({ object: "text_completion", choices: [choice] })}\n\n`);
    response.end("data: [DONE]\n\n");
  });
});
server.listen(port, "127.0.0.1");
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    process.exit(0);
  });
}
