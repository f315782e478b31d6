// What the benchmark's HTTP client costs a served first token: the HTTP floor server (a node:http child
// that loads no model and answers one event at once) read with Node's fetch and with node:http on a
// keep-alive agent (BenchHttpClient itself, what bench ttfb's server rows use), taking turns, one request
// every 5 ms. Prints the median, p10 and p90 of each, in ms, from the request to its first body bytes.
// Needs `npm run build`.
//   node benchmarks/http-client-cost.mjs [--rounds 400]
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BenchHttpClient } from "../dist/bench/bench-http-client.js";
import { failArgument, parseBenchArguments } from "./lib/bench-arguments.mjs";
import { floorCompletionRequest } from "./lib/floor-request.mjs";

const script = "http-client-cost";
const values = parseBenchArguments(script, { rounds: { type: "string", default: "400" } });
if (!/^\d+$/.test(values.rounds) || Number(values.rounds) < 10)
  failArgument(script, `--rounds must be a whole number of at least 10; got ${values.rounds}`);
const rounds = Number(values.rounds);

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const entry = join(import.meta.dirname, "..", "dist", "bench", "http-floor-server.js");
const floor = spawn(process.execPath, [entry, String(port)], { stdio: ["ignore", "ignore", "inherit"] });
const { url, body, headers } = floorCompletionRequest(port);

async function viaFetch() {
  const started = performance.now();
  const response = await fetch(url, { method: "POST", headers, body });
  let first = null;
  for await (const _ of response.body) first ??= performance.now();
  return first - started;
}
const client = new BenchHttpClient();
async function viaBenchClient() {
  const started = performance.now();
  const response = await client.request({
    method: "POST",
    url,
    headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  let first = null;
  for await (const _ of response) first ??= performance.now();
  return first - started;
}

try {
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`http://127.0.0.1:${port}/health`);
      break;
    } catch (error) {
      if (tries > 100) throw new Error(`the floor server did not start: ${error.message}`);
      await sleep(50);
    }
  }
  const times = { fetch: [], BenchHttpClient: [] };
  const clients = { fetch: viaFetch, BenchHttpClient: viaBenchClient };
  for (let round = -20; round < rounds; round++) {
    // Each round in the other order, so neither client always runs right after the other.
    const order = round % 2 === 0 ? ["fetch", "BenchHttpClient"] : ["BenchHttpClient", "fetch"];
    for (const name of order) {
      const ms = await clients[name]();
      if (round >= 0) times[name].push(ms);
      await sleep(5);
    }
  }
  const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
  console.log(`${rounds} rounds, ms from the request to its first body bytes`);
  for (const [name, values] of Object.entries(times)) {
    const sorted = values.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(16)} median ${at(sorted, 0.5).toFixed(3)}  p10 ${at(sorted, 0.1).toFixed(3)}  p90 ${at(sorted, 0.9).toFixed(3)}`,
    );
  }
} finally {
  client.close();
  floor.kill();
}
