// Where `tessera serve`'s first token goes, layer by layer, against llama-server: four servers on the same
// model, 1 thread, flash attention off, one slot each, take turns request by request (a new random order
// each round, so each request arrives after other servers' work, as in `bench ttfb`):
//   - tessera serve (Fastify, validation, slots and metrics, the backend, the thunk);
//   - a minimal node:http server over the backend and the thunk (benchmarks/serve-layers/minimal-server.mjs);
//   - the same over LlamaContext.generate (the native engine and its token stream only);
//   - llama-server.
// The differences between neighbouring rows are the cost of each layer. First token is timed from the
// fetch call to the first text, streamed, 32 tokens per request; the first --skip rounds are not counted.
// Run after `npm run build` and `npm run bench:peers`:
//   node benchmarks/serve-layers.mjs [--model tiny] [--rounds 120] [--skip 10] [--max-tokens 32]
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { findPeerBinary } from "../dist/bench/peer-binaries.js";
import { freePort, ServerProcess } from "../dist/bench/server-process.js";
import { resolveModel } from "../dist/gguf/default-model.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    rounds: { type: "string", default: "120" },
    skip: { type: "string", default: "10" },
    "max-tokens": { type: "string", default: "32" },
  },
});
for (const name of ["rounds", "skip", "max-tokens"]) {
  if (!/^\d+$/.test(values[name])) throw new Error(`--${name} must be a whole number, got ${values[name]}`);
}
if (Number(values.rounds) <= Number(values.skip)) {
  throw new Error(`--rounds (${values.rounds}) must be more than --skip (${values.skip})`);
}
if (Number(values["max-tokens"]) < 1) throw new Error("--max-tokens must be at least 1");
const llamaServer = findPeerBinary("llama-server");
if (llamaServer === null) {
  throw new Error("no llama-server: run npm run bench:peers first, or set TESSERA_LLAMA_SERVER to one");
}
const modelPath = await resolveModel(values.model);

const servers = [];
const interrupted = new AbortController();
const starting = new Set();
let stopping = null;
const stopServers = () => {
  stopping ??= (async () => {
    interrupted.abort();
    await Promise.allSettled([...starting]);
    for (const { process } of servers) await process.stop();
  })();
  return stopping;
};
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
]) {
  process.once(signal, () => {
    void stopServers().finally(() => process.exit(code));
  });
}
async function start(name, command, args, extra = {}) {
  const port = await freePort();
  const pending = ServerProcess.start({
    name,
    command,
    args: args(port),
    readyUrl: `http://127.0.0.1:${port}/health`,
    signal: interrupted.signal,
  });
  starting.add(pending);
  try {
    const started = await pending;
    servers.push({ name, process: started, base: `http://127.0.0.1:${port}`, extra });
    if (interrupted.signal.aborted) await started.stop();
  } finally {
    starting.delete(pending);
  }
}

const minimal = resolve(import.meta.dirname, "serve-layers", "minimal-server.mjs");
const words = "river stone garden letter window morning table bridge cloud forest".split(" ");
const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
try {
  await start("tessera serve", process.execPath, (port) => [
    resolve("dist/cli/main.js"),
    "serve",
    ...["--model", modelPath, "--port", String(port), "--threads", "1", "--context-size", "512"],
    ...["--parallel", "1", "--alias", "local", "--flash-attn", "off"],
  ]);
  await start("minimal server, backend + thunk", process.execPath, (port) => [
    minimal,
    "backend",
    String(port),
    modelPath,
  ]);
  await start("minimal server, LlamaContext", process.execPath, (port) => [
    minimal,
    "context",
    String(port),
    modelPath,
  ]);
  await start(
    "llama-server",
    llamaServer,
    (port) => [
      ...["-m", modelPath, "--host", "127.0.0.1", "--port", String(port)],
      ...["-t", "1", "-c", "512", "-np", "1", "-fa", "off", "--no-webui"],
    ],
    // It must not reuse the last prompt's cells, which the others do not either.
    { cache_prompt: false },
  );
  const times = new Map(servers.map(({ name }) => [name, []]));
  const ratios = new Map(servers.map(({ name }) => [name, []]));
  let promptNumber = 0;
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = [...servers].sort(() => Math.random() - 0.5);
    const roundTimes = new Map();
    for (const server of order) {
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
          ...server.extra,
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
      if (first !== null) roundTimes.set(server.name, first);
    }
    if (round < Number(values.skip)) continue;
    const reference = roundTimes.get("llama-server");
    for (const [name, ms] of roundTimes) {
      times.get(name).push(ms);
      if (reference !== undefined) ratios.get(name).push(ms / reference);
    }
  }
  console.log(
    `${values.model}, 1 thread, ${values["max-tokens"]} tokens per request, ${values.rounds} rounds (first ${values.skip} not counted), servers in a new random order each round; ${new Date().toISOString()}`,
  );
  console.log("| server | first token ms (median) | ÷ llama-server (median of per-round ratios) | runs |");
  console.log("|---|---:|---:|---:|");
  for (const { name } of servers) {
    const list = times.get(name);
    console.log(
      `| ${name} | ${median(list).toFixed(2)} | ${median(ratios.get(name)).toFixed(2)}× | ${list.length} |`,
    );
  }
} finally {
  await stopServers();
}
