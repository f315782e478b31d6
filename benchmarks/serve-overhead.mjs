#!/usr/bin/env node
// What the HTTP path of `tessera serve` adds: time to first content token and tokens/s of the same
// model, same backend object and same prompts, once in-process and once over loopback HTTP (raw fetch
// reading SSE, and OpenAIBackend), runs interleaved. Run `npm run build` first.
//
//   node benchmarks/serve-overhead.mjs [--runs 20] [--tokens 32] [--model tiny] [--threads 1] [--spawn] [--json out.json]
//
// By default the server runs in this process on the very same backend object; --spawn starts
// `tessera serve` as a child process instead (its own copy of the model, as users run it).
// Every run uses a prompt that differs from its first token on, so no run profits from a cached prefix.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { LlamaCppBackend } from "../dist/backends/llamacpp/llama-cpp-backend.js";
import { OpenAIBackend, SseDecoder } from "../dist/backends/openai/index.js";
import { freePort, ServerProcess } from "../dist/bench/server-process.js";
import { median } from "../dist/bench/stats.js";
import { CBlock } from "../dist/core/cblock.js";
import { startTesseraServer } from "../dist/server/index.js";
import { SimpleContext } from "../dist/stdlib/contexts/simple-context.js";

const { values: flags } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    tokens: { type: "string", default: "32" },
    model: { type: "string" },
    threads: { type: "string", default: "1" },
    json: { type: "string" },
    spawn: { type: "boolean", default: false },
  },
});
const runs = Number(flags.runs);
const maxTokens = Number(flags.tokens);
const words = [
  "amber",
  "basil",
  "cedar",
  "delta",
  "ember",
  "fjord",
  "grove",
  "harbor",
  "iris",
  "jade",
  "kelp",
  "lotus",
];
const promptFor = (run, path) =>
  `${words[run % words.length]} ${run} ${path}: tell me about the ${words[(run * 7) % words.length]} river.`;

const backend = await LlamaCppBackend.create({
  ...(flags.model !== undefined && { model: flags.model }),
  threads: Number(flags.threads),
  sequences: 1,
});
let server;
if (flags.spawn) {
  const port = await freePort();
  const child = await ServerProcess.start({
    name: "tessera serve",
    command: process.execPath,
    args: [
      "dist/cli/main.js",
      "serve",
      "--port",
      String(port),
      "--threads",
      flags.threads,
      "--parallel",
      "1",
    ].concat(flags.model === undefined ? [] : ["--model", flags.model]),
    readyUrl: `http://127.0.0.1:${port}/health`,
  });
  server = { url: `http://127.0.0.1:${port}`, close: () => child.stop(), metrics: null };
} else {
  server = await startTesseraServer({ backend, port: 0 });
}
const remote = new OpenAIBackend({ model: backend.modelId, baseUrl: `${server.url}/v1`, apiKey: "none" });
const modelOptions = { temperature: 0, maxNewTokens: maxTokens, ignoreEos: true };

/** A Backend read with for-await: TTFB is the first non-empty delta. */
async function viaBackend(target, prompt) {
  const started = performance.now();
  const { thunk } = await target.generateFromContext(new CBlock(prompt), new SimpleContext(), {
    modelOptions: target === backend ? modelOptions : { temperature: 0, maxNewTokens: maxTokens },
  });
  let first = null;
  for await (const delta of thunk) if (first === null && delta.length > 0) first = performance.now();
  const ended = performance.now();
  const tokens = thunk.generation.usage?.completionTokens ?? 0;
  return { ttfbMs: first - started, tokensPerSecond: ((tokens - 1) * 1000) / (ended - first), tokens };
}

/** Raw fetch over loopback, SSE read by hand: the thinnest HTTP client there is. */
async function viaHttp(prompt) {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      messages: [{ role: "user", content: prompt }],
      max_tokens: maxTokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  // The project's SSE decoder (CRLF, comments, split events), not a second hand-rolled parser.
  const decoder = new SseDecoder();
  let first = null;
  let tokens = 0;
  let done = false;
  for await (const bytes of response.body) {
    for (const { data } of decoder.push(bytes)) {
      if (data === "[DONE]") {
        done = true;
        continue;
      }
      const chunk = JSON.parse(data);
      if (chunk.error) throw new Error(chunk.error.message);
      if (first === null && chunk.choices[0]?.delta?.content) first = performance.now();
      if (chunk.usage) tokens = chunk.usage.completion_tokens;
    }
  }
  if (decoder.finish() !== null) throw new Error("stream ended inside an event: counted as a failure");
  if (!done) throw new Error("stream ended without [DONE]: counted as a failure, not a fast run");
  const ended = performance.now();
  return { ttfbMs: first - started, tokensPerSecond: ((tokens - 1) * 1000) / (ended - first), tokens };
}

// One warm-up of each path (model pages, JIT, the first socket).
await viaBackend(backend, promptFor(1000, "warm"));
await viaHttp(promptFor(1001, "warm"));
await viaBackend(remote, promptFor(1002, "warm"));

const results = { inProcess: [], http: [], openaiBackend: [] };
for (let run = 0; run < runs; run += 1) {
  // Interleaved, order rotating, so drift (thermal, other load) hits every path alike.
  const order = [
    ["inProcess", () => viaBackend(backend, promptFor(run, "a"))],
    ["http", () => viaHttp(promptFor(run, "b"))],
    ["openaiBackend", () => viaBackend(remote, promptFor(run, "c"))],
  ];
  for (let index = 0; index < order.length; index += 1) {
    const [name, measure] = order[(index + run) % order.length];
    results[name].push(await measure());
  }
}

const summary = {};
for (const [name, samples] of Object.entries(results)) {
  summary[name] = {
    ttfbMedianMs: median(samples.map((sample) => sample.ttfbMs)),
    tokensPerSecondMedian: median(samples.map((sample) => sample.tokensPerSecond)),
    tokens: median(samples.map((sample) => sample.tokens)),
  };
}
const overheadHttp = median(
  results.http.map((sample, index) => sample.ttfbMs - results.inProcess[index].ttfbMs),
);
const overheadBackend = median(
  results.openaiBackend.map((sample, index) => sample.ttfbMs - results.inProcess[index].ttfbMs),
);
// The server's own view: request arrival to first content byte written (its TTFB histogram).
const metricsText = await (await fetch(`${server.url}/metrics`)).text();
const metricValue = (suffix) => {
  const line = metricsText
    .split("\n")
    .find((text) => text.startsWith(`tessera_time_to_first_byte_seconds_${suffix}{route="chat"}`));
  return line === undefined ? null : Number(line.split(" ").at(-1));
};
const serverSum = metricValue("sum");
const serverCount = metricValue("count");
const serverMeanTtfbMs = serverSum === null || !serverCount ? null : (serverSum / serverCount) * 1000;
const report = {
  serverMeanTtfbMs,
  date: new Date().toISOString(),
  model: backend.modelId,
  server: flags.spawn ? "child process" : "same process, same backend",
  runs,
  maxTokens,
  threads: Number(flags.threads),
  summary,
  medianTtfbOverheadMs: { rawFetch: overheadHttp, openaiBackend: overheadBackend },
};

const fixed = (value, digits = 2) => (value === null ? "n/a" : value.toFixed(digits));
console.log(`| path | median TTFB (ms) | median tokens/s |`);
console.log(`| --- | ---: | ---: |`);
for (const [name, row] of Object.entries(summary)) {
  console.log(`| ${name} | ${fixed(row.ttfbMedianMs)} | ${fixed(row.tokensPerSecondMedian, 1)} |`);
}
console.log(
  `\nmedian TTFB added by HTTP (paired, ${runs} runs, ${backend.modelId}, ${maxTokens} tokens, server ${report.server}): raw fetch ${fixed(overheadHttp)} ms, OpenAIBackend ${fixed(overheadBackend)} ms`,
);
console.log(
  `server-side mean TTFB (arrival to first content write, all HTTP runs): ${fixed(serverMeanTtfbMs)} ms`,
);
if (flags.json) writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);

await server.close();
await backend.dispose();
