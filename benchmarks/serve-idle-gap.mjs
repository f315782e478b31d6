// First token of `tessera serve` and llama-server on /v1/completions when each is busy and when each sits
// idle between requests: a request that arrives to a sleeping process pays for waking it (threads, caches,
// a halted virtual CPU), and a server whose request path runs more code pays more. `bench ttfb` alternates
// its rows request by request, so every request there arrives to an idle server; this separates the two.
//
// Each round sends --requests streamed requests to one server, then to the other (the order alternates
// between rounds), with --gaps milliseconds of idle time before each request; the first --skip requests of
// a block are not counted. A last row alternates the servers request by request, with no gap, as
// `bench ttfb` does: each request then arrives after the other server's. Figures are the median first token (from the request to the first text) per
// server and gap, and the median of the per-round ratios (tessera ÷ llama-server). Run after `npm run build`
// and `npm run bench:peers`:
//   node benchmarks/serve-idle-gap.mjs [--model tiny] [--gaps 0,3,10] [--rounds 6] [--requests 40] [--max-tokens 32]
import { parseArgs } from "node:util";
import { resolveModel } from "../dist/gguf/default-model.js";
import { firstTextMs, median, promptNumbered, requireLlamaServer, ServerSet } from "./serve-support.mjs";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    gaps: { type: "string", default: "0,3,10" },
    rounds: { type: "string", default: "6" },
    requests: { type: "string", default: "40" },
    skip: { type: "string", default: "5" },
    threads: { type: "string", default: "1" },
    "max-tokens": { type: "string", default: "32" },
  },
});
// Flags first, so a bad one is named before anything is looked up or started.
for (const name of ["rounds", "requests", "skip", "max-tokens", "threads"]) {
  if (!/^\d+$/.test(values[name])) throw new Error(`--${name} must be a whole number, got ${values[name]}`);
}
for (const name of ["rounds", "max-tokens", "threads"]) {
  if (Number(values[name]) < 1) throw new Error(`--${name} must be at least 1, got ${values[name]}`);
}
if (!/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/.test(values.gaps)) {
  throw new Error(`--gaps must be idle milliseconds separated by commas (e.g. 0,3,10), got ${values.gaps}`);
}
if (Number(values.requests) <= Number(values.skip)) {
  throw new Error(
    `--requests (${values.requests}) must be more than --skip (${values.skip}): the first --skip requests of a block are not counted`,
  );
}
const llamaServer = requireLlamaServer("serve-idle-gap");
const modelPath = await resolveModel(values.model);
const threads = values.threads;
const contextSize = "512";
const servers = new ServerSet();
// Started inside the try below, so a server that fails to start stops the one started before it.
let tessera;
let peer;
// Both continue bare text and ignore end-of-sequence; llama-server must not reuse the last prompt's cells.
const bodies = new Map([
  ["tessera serve", { ignore_eos: true }],
  ["llama-server", { ignore_eos: true, cache_prompt: false }],
]);
let promptNumber = 0;
function firstToken(server) {
  promptNumber++;
  return firstTextMs(
    server,
    promptNumbered(promptNumber),
    Number(values["max-tokens"]),
    bodies.get(server.name),
  );
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

try {
  tessera = await servers.startTessera(modelPath, threads, contextSize);
  peer = await servers.startLlamaServer(llamaServer, modelPath, threads, contextSize);
  console.log(
    `${values.model}, ${threads} thread(s), ${values["max-tokens"]} tokens per request, ${values.rounds} rounds of ${values.requests} requests per server and gap (first ${values.skip} of each block not counted); ${new Date().toISOString()}`,
  );
  console.log(
    "| idle gap ms | tessera serve ms | llama-server ms | tessera ÷ llama-server (per-round range) |",
  );
  console.log("|---:|---:|---:|---:|");
  for (const gap of values.gaps.split(",").map(Number)) {
    const times = new Map([
      [tessera.name, []],
      [peer.name, []],
    ]);
    const ratios = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      const order = round % 2 === 0 ? [tessera, peer] : [peer, tessera];
      const roundMedians = new Map();
      for (const server of order) {
        const block = [];
        for (let request = 0; request < Number(values.requests); request++) {
          if (gap > 0) await sleep(gap);
          const ms = await firstToken(server);
          if (request >= Number(values.skip)) block.push(ms);
        }
        times.get(server.name).push(...block);
        roundMedians.set(server.name, median(block));
      }
      ratios.push(roundMedians.get(tessera.name) / roundMedians.get(peer.name));
    }
    console.log(
      `| ${gap} | ${median(times.get(tessera.name)).toFixed(2)} | ${median(times.get(peer.name)).toFixed(2)} | ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`,
    );
  }
  // Request by request: the other server ran in between.
  const times = new Map([
    [tessera.name, []],
    [peer.name, []],
  ]);
  const ratios = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const block = new Map([
      [tessera.name, []],
      [peer.name, []],
    ]);
    for (let request = 0; request < Number(values.requests); request++) {
      const order = request % 2 === 0 ? [tessera, peer] : [peer, tessera];
      for (const server of order) {
        const ms = await firstToken(server);
        if (request >= Number(values.skip)) block.get(server.name).push(ms);
      }
    }
    for (const [name, list] of block) times.get(name).push(...list);
    ratios.push(median(block.get(tessera.name)) / median(block.get(peer.name)));
  }
  console.log(
    `| alternating request by request, 0 | ${median(times.get(tessera.name)).toFixed(2)} | ${median(times.get(peer.name)).toFixed(2)} | ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`,
  );
} finally {
  await servers.stop();
}
