// How `tessera serve`'s first token changes over its first few thousand requests, against llama-server
// taking turns with it (request by request, each server first in every other pair): V8 optimizes a
// function only after it has run a budget of bytecode with settled type feedback, and the code run once
// per request reaches that after about a thousand requests. Each window's row is the median first token
// and the median of the pairs' ratios over that window. `--node-flags` starts serve under V8 flags: with
// `--interrupt-budget=4000` (the default is 67584) V8 optimizes after a sixteenth of the bytecode, and the
// drop should move about that much earlier if it is the JIT and not something else the requests build up.
// Run after `npm run build` and `npm run bench:peers`:
//   node benchmarks/serve-jit-warm-up.mjs [--requests 4000] [--window 250] [--max-tokens 2] [--node-flags=--interrupt-budget=4000]
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { resolveModel } from "../dist/gguf/default-model.js";
import { firstTextMs, median, promptNumbered, requireLlamaServer, ServerSet } from "./serve-support.mjs";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    requests: { type: "string", default: "4000" },
    window: { type: "string", default: "250" },
    "max-tokens": { type: "string", default: "2" },
    "node-flags": { type: "string", default: "" },
  },
});
for (const name of ["requests", "window", "max-tokens"]) {
  if (!/^\d+$/.test(values[name]) || Number(values[name]) < 1)
    throw new Error(`--${name} must be a whole number of at least 1, got ${values[name]}`);
}
const nodeFlags = values["node-flags"].split(" ").filter((flag) => flag !== "");
const llamaServer = requireLlamaServer("serve-jit-warm-up");
const modelPath = await resolveModel(values.model);
const servers = new ServerSet();
try {
  const serve = await servers.start(
    `tessera serve${nodeFlags.length > 0 ? ` (node ${nodeFlags.join(" ")})` : ""}`,
    process.execPath,
    (port) => [
      ...nodeFlags,
      resolve(import.meta.dirname, "..", "dist", "cli", "main.js"),
      "serve",
      ...["--model", modelPath, "--port", String(port), "--threads", "1"],
      ...["--context-size", "512", "--parallel", "1", "--alias", "local", "--flash-attn", "off"],
    ],
  );
  const llama = await servers.startLlamaServer(llamaServer, modelPath, "1", "512");
  const maxTokens = Number(values["max-tokens"]);
  const window = Number(values.window);
  console.log(
    `${serve.name} and llama-server taking turns, ${values.model}, 1 thread, ${maxTokens} tokens per request, windows of ${window} requests to each; ${new Date().toISOString()}\n`,
  );
  console.log(
    "| requests to serve | serve first token ms (median) | ÷ llama-server (median of pairs) | pairs |",
  );
  console.log("|---:|---:|---:|---:|");
  let prompt = 0;
  let times = [];
  let ratios = [];
  let failed = 0;
  let firstFailure;
  const timeOf = (server) =>
    firstTextMs(server, promptNumbered(++prompt), maxTokens, server === llama ? { cache_prompt: false } : {});
  for (let request = 1; request <= Number(values.requests); request++) {
    try {
      // Each server goes first in every other pair, so neither always follows the other's work.
      let mine;
      let theirs;
      if (request % 2 === 0) {
        mine = await timeOf(serve);
        theirs = await timeOf(llama);
      } else {
        theirs = await timeOf(llama);
        mine = await timeOf(serve);
      }
      times.push(mine);
      ratios.push(mine / theirs);
    } catch (error) {
      firstFailure ??= error.message;
      // llama-server ends some streams of the random model's text with an error: that pair is left out.
      failed++;
    }
    // A full window, or the last part of one.
    if (request % window === 0 || request === Number(values.requests)) {
      const from = request - ((request - 1) % window);
      if (times.length === 0) {
        console.log(`| ${from}-${request} | n/a | n/a | 0 |`);
        continue;
      }
      console.log(
        `| ${from}-${request} | ${median(times).toFixed(2)} | ${median(ratios).toFixed(2)}× | ${times.length} |`,
      );
      times = [];
      ratios = [];
    }
  }
  console.log(
    `\nPairs left out for a failed request: ${failed}${failed > 0 ? ` (the first: ${firstFailure})` : ""}.`,
  );
} finally {
  await servers.stop();
}
