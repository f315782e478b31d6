// Where `tessera serve`'s first token goes, layer by layer, against llama-server: six servers on the same
// model, 1 thread, flash attention off, one slot each, take turns request by request (a new random order
// each round, so each request arrives after other servers' work, as in `bench ttfb`):
//   - tessera serve (Fastify, validation, slots and metrics, the backend, the thunk);
//   - the same with first-token timings on and an x-tessera-timing-id on each request, as bench ttfb
//     runs it: what the benchmark's own probe costs the row it times;
//   - a minimal node:http server over the backend and the thunk (benchmarks/serve-layers/minimal-server.mjs);
//   - the same over LlamaContext.generate (the native engine and its token stream only);
//   - llama-server;
//   - the HTTP floor: a node:http server that loads no model and answers at once with one fixed text
//     event (dist/bench/http-floor-server.js, bench ttfb's "http-floor" row): what reaching a server and
//     reading its first event back puts under every served first token.
// The differences between neighbouring rows are the cost of each layer. First token is timed from the
// request to the first text (bench ttfb's node:http client), streamed, 32 tokens per request; the first --skip rounds are not counted.
// Run after `npm run build` and `npm run bench:peers`:
// `--jit-warmup N` first sends N short requests (2 tokens) to each Node server, taking turns, so they are
// measured with their request paths optimized, as `bench ttfb --jit-warmup` does (V8 optimizes them only
// after a thousand requests or more: benchmarks/serve-jit-warm-up.mjs). llama-server is not warmed: it has
// nothing to compile, and it got slower over thousands of requests (results/llama-server-warmed-2026-12-02/).
//   node benchmarks/serve-layers.mjs [--model tiny] [--rounds 120] [--skip 10] [--max-tokens 32] [--jit-warmup 0]
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { runOrders } from "../dist/bench/run-order.js";
import { resolveModel } from "../dist/gguf/default-model.js";
import { firstTextMs, median, promptNumbered, requireLlamaServer, ServerSet } from "./serve-support.mjs";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    rounds: { type: "string", default: "120" },
    skip: { type: "string", default: "10" },
    "max-tokens": { type: "string", default: "32" },
    "jit-warmup": { type: "string", default: "0" },
  },
});
for (const name of ["rounds", "skip", "max-tokens", "jit-warmup"]) {
  if (!/^\d+$/.test(values[name])) throw new Error(`--${name} must be a whole number, got ${values[name]}`);
}
if (Number(values.rounds) <= Number(values.skip)) {
  throw new Error(`--rounds (${values.rounds}) must be more than --skip (${values.skip})`);
}
if (Number(values["max-tokens"]) < 1) throw new Error("--max-tokens must be at least 1");
const llamaServer = requireLlamaServer("serve-layers");
const modelPath = await resolveModel(values.model);
const servers = new ServerSet();
const minimal = resolve(import.meta.dirname, "serve-layers", "minimal-server.mjs");
const floorServer = resolve(import.meta.dirname, "..", "dist", "bench", "http-floor-server.js");
const minimalArgs = (mode) => (port) => [minimal, mode, String(port), modelPath];
try {
  const started = [
    await servers.startTessera(modelPath, "1", "512"),
    await servers.startTessera(modelPath, "1", "512", { timings: true }),
    await servers.start("minimal server, backend + thunk", process.execPath, minimalArgs("backend")),
    await servers.start("minimal server, LlamaContext", process.execPath, minimalArgs("context")),
    await servers.startLlamaServer(llamaServer, modelPath, "1", "512"),
    await servers.start("HTTP floor (no model)", process.execPath, (port) => [floorServer, String(port)]),
  ];
  // llama-server must not reuse the last prompt's cells, which the others do not either.
  const extraBody = (name) => (name === "llama-server" ? { cache_prompt: false } : {});
  const times = new Map(started.map(({ name }) => [name, []]));
  const ratios = new Map(started.map(({ name }) => [name, []]));
  const failures = new Map(started.map(({ name }) => [name, 0]));
  // The timed server's requests carry an id, as bench ttfb's do.
  const headersOf = (server) =>
    server.name.includes("timings on") ? { "x-tessera-timing-id": randomUUID() } : {};
  let promptNumber = 0;
  const warmed = started.filter(({ name }) => name !== "llama-server");
  const warmUpFailures = new Map();
  for (let request = 0; request < Number(values["jit-warmup"]); request++) {
    for (const server of warmed) {
      await firstTextMs(server, promptNumbered(++promptNumber), 2, {}, headersOf(server)).catch((error) => {
        const failure = warmUpFailures.get(server.name) ?? { count: 0, first: error.message };
        failure.count++;
        warmUpFailures.set(server.name, failure);
      });
    }
  }
  const nextOrder = runOrders(started.length, "shuffled", Math.floor(Math.random() * 2 ** 32));
  for (let round = 0; round < Number(values.rounds); round++) {
    // Fisher-Yates (bench ttfb's shuffle): sorting with a random comparator is not uniform, and put
    // tessera serve first in 29% of rounds where 1 in 6 is fair.
    const order = nextOrder().map((index) => started[index]);
    const roundTimes = new Map();
    for (const server of order) {
      promptNumber++;
      try {
        const ms = await firstTextMs(
          server,
          promptNumbered(promptNumber),
          Number(values["max-tokens"]),
          extraBody(server.name),
          headersOf(server),
        );
        roundTimes.set(server.name, ms);
      } catch {
        // llama-server's output parser sometimes ends a stream with an error event on the random model's
        // text: that run is counted apart, as bench ttfb does.
        failures.set(server.name, failures.get(server.name) + 1);
      }
    }
    if (round < Number(values.skip)) continue;
    const reference = roundTimes.get("llama-server");
    for (const [name, ms] of roundTimes) {
      times.get(name).push(ms);
      if (reference !== undefined) ratios.get(name).push(ms / reference);
    }
  }
  console.log(
    `${values.model}, 1 thread, ${values["max-tokens"]} tokens per request, ${values["jit-warmup"]} JIT warm-up requests to each Node server first, ${values.rounds} rounds (first ${values.skip} not counted), servers in a new random order each round; ${new Date().toISOString()}`,
  );
  for (const [name, { count, first }] of warmUpFailures) {
    console.log(`${count} warm-up requests to ${name} failed; the first: ${first}`);
  }
  console.log(
    "| server | first token ms (median) | ÷ llama-server (median of per-round ratios) | runs | failed runs |",
  );
  console.log("|---|---:|---:|---:|---:|");
  for (const { name } of started) {
    const list = times.get(name);
    console.log(
      `| ${name} | ${median(list).toFixed(2)} | ${median(ratios.get(name)).toFixed(2)}× | ${list.length} | ${failures.get(name)} |`,
    );
  }
} finally {
  await servers.stop();
}
