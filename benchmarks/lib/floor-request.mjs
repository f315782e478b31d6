// The request the HTTP-floor comparisons send (http-client-cost.mjs, http-idle-cost.mjs): a streamed
// /v1/completions body like bench ttfb's serve rows send, which the floor server
// (dist/bench/http-floor-server.js) reads and parses before it answers one event.

/** The floor server's completions URL on `port`, the JSON body and the headers (no content-length). */
export function floorCompletionRequest(port) {
  return {
    url: `http://127.0.0.1:${port}/v1/completions`,
    body: JSON.stringify({ model: "local", prompt: "hello world ".repeat(8), max_tokens: 8, stream: true }),
    headers: { "content-type": "application/json", accept: "text/event-stream" },
  };
}
