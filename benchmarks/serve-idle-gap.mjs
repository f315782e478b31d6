// First token of `tessera serve` and llama-server on /v1/completions when each is busy and when each sits
// idle between requests: a request that arrives to a sleeping process pays for waking it (threads, caches,
// a halted virtual CPU), and a server whose request path runs more code pays more. `bench ttfb` alternates
// its rows request by request, so every request there arrives to an idle server; this separates the two.
//
// Each round sends --requests streamed requests to one server, then to the other (the order alternates
// between rounds), with --gaps milliseconds of idle time before each request; the first --skip requests of
// a block are not counted. A last row alternates the servers request by request, with no gap, as
// `bench ttfb` does: each request then arrives after the other server's. Figures are the median first token (from the fetch call to the first text) per
// server and gap, and the median of the per-round ratios (tessera ÷ llama-server). Run after `npm run build`
// and `npm run bench:peers`:
//   node benchmarks/serve-idle-gap.mjs [--model tiny] [--gaps 0,3,10] [--rounds 6] [--requests 40] [--max-tokens 32]
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { findPeerBinary } from "../dist/bench/peer-binaries.js";
import { freePort, ServerProcess } from "../dist/bench/server-process.js";
import { resolveModel } from "../dist/gguf/default-model.js";

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
const llamaServer = findPeerBinary("llama-server");
if (llamaServer === null) {
  throw new Error(
    process.env.TESSERA_LLAMA_SERVER
      ? `no llama-server at TESSERA_LLAMA_SERVER=${process.env.TESSERA_LLAMA_SERVER}: point it at a built llama-server, or unset it and run npm run bench:peers`
      : "no llama-server: run npm run bench:peers first, or set TESSERA_LLAMA_SERVER to one",
  );
}
const modelPath = await resolveModel(values.model);
const threads = values.threads;
const contextSize = "512";

const servers = [];
// Aborted by an interrupt: a server still starting is stopped by ServerProcess.start itself.
const interrupted = new AbortController();
const starting = new Set();
// One stop for both paths (the signal handler and the finally below, which an interrupted request reaches
// too): whichever comes first stops every server, and the other waits for the same stop.
let stopping = null;
const stopServers = () => {
  stopping ??= (async () => {
    interrupted.abort();
    await Promise.allSettled([...starting]);
    for (const server of servers) await server.stop();
  })();
  return stopping;
};
// Interrupted (Ctrl-C, or a signal to this process alone, as \`timeout\` sends), stop both servers before
// exiting: they are this script's children and would otherwise outlive it.
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
]) {
  process.once(signal, () => {
    void stopServers().finally(() => process.exit(code));
  });
}
async function start(name, command, args, env) {
  const port = await freePort();
  const pending = ServerProcess.start({
    name,
    command,
    args: args(port),
    readyUrl: `http://127.0.0.1:${port}/health`,
    signal: interrupted.signal,
    ...(env && { env }),
  });
  starting.add(pending);
  let process;
  try {
    process = await pending;
  } catch (error) {
    if (name === "llama-server" && !interrupted.signal.aborted) {
      throw new Error(
        `${error.message}\nCheck the llama-server at ${command} (TESSERA_LLAMA_SERVER, or rebuild it with npm run bench:peers).`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    starting.delete(pending);
  }
  servers.push(process);
  // Started just as an interrupt came: stopping may have passed it by.
  if (interrupted.signal.aborted) await process.stop();
  return { name, base: `http://127.0.0.1:${port}` };
}
// Started inside the try below, so a server that fails to start stops the one started before it.
let tessera;
let peer;
const startBoth = async () => {
  tessera = await start("tessera serve", process.execPath, (port) => [
    resolve("dist/cli/main.js"),
    "serve",
    ...["--model", modelPath, "--port", String(port), "--threads", threads],
    ...["--context-size", contextSize, "--parallel", "1", "--alias", "local", "--flash-attn", "off"],
  ]);
  peer = await start("llama-server", llamaServer, (port) => [
    ...["-m", modelPath, "--host", "127.0.0.1", "--port", String(port)],
    ...["-t", threads, "-c", contextSize, "-np", "1", "-fa", "off", "--no-webui"],
  ]);
};
// Both continue bare text and ignore end-of-sequence; llama-server must not reuse the last prompt's cells.
const bodies = new Map([
  ["tessera serve", { ignore_eos: true }],
  ["llama-server", { ignore_eos: true, cache_prompt: false }],
]);

const words = "river stone garden letter window morning table bridge cloud forest".split(" ");
let promptNumber = 0;
async function firstToken(server) {
  try {
    return await timeFirstToken(server);
  } catch (error) {
    throw new Error(`${server.name}: ${error.message} (${error.cause?.message ?? "no cause"})`);
  }
}

async function timeFirstToken(server) {
  promptNumber++;
  const prompt = `${Array.from({ length: 12 }, (_, j) => words[(promptNumber * 7 + j * 3) % words.length]).join(" ")} ${promptNumber}`;
  const startedAt = performance.now();
  const response = await fetch(`${server.base}/v1/completions`, {
    signal: AbortSignal.timeout(30_000),
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "local",
      prompt,
      max_tokens: Number(values["max-tokens"]),
      temperature: 0,
      stream: true,
      ...bodies.get(server.name),
    }),
  });
  if (!response.ok) throw new Error(`${server.name}: HTTP ${response.status} ${await response.text()}`);
  let first = null;
  const decoder = new TextDecoder();
  for await (const bytes of response.body) {
    if (first === null && /"text":"[^"]/.test(decoder.decode(bytes, { stream: true }))) {
      first = performance.now() - startedAt;
    }
  }
  if (first === null) throw new Error(`${server.name}: no text in the stream`);
  return first;
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

try {
  await startBoth();
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
  await stopServers();
}
