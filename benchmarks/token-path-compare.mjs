#!/usr/bin/env node
// The token path of two tessera builds side by side in one run: first token and decode tokens/s on the
// `tiny` preset, 1 thread, greedy, logits off, measured through the public API (backend → thunk → a
// `for await` reader), so every buffer between the decode thread and the user is in the figure.
//
//   node benchmarks/token-path-compare.mjs --before /path/to/old/checkout --after . [--rounds 12] [--tokens 128]
//
// Each checkout needs its own built dist/ and native/build. The rounds alternate the two builds (before,
// after, after, before, …) in fresh child processes, so a noisy minute on a shared machine hits both alike;
// the figures are medians over rounds and the ratio is the median of the per-round ratios.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string", default: "." },
    rounds: { type: "string", default: "12" },
    tokens: { type: "string", default: "128" },
    runs: { type: "string", default: "5" },
    child: { type: "string" },
  },
});

const prompt =
  "You are a helpful assistant. Answer briefly. Question: what is the capital of France, and why?";

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One child: load the build at `root`, run `runs` generations after a warm-up, print medians as JSON. */
async function child(root) {
  const { CBlock, ChatContext, LlamaCppBackend } = await import(
    pathToFileURL(resolve(root, "dist/index.js")).href
  );
  const backend = await LlamaCppBackend.create({ model: "tiny", threads: 1 });
  const tokens = Number(flags.tokens);
  const firstTokens = [];
  const rates = [];
  try {
    for (let run = 0; run <= Number(flags.runs); run++) {
      // A fresh salt per run, so no prefix reuse skips the prefill.
      const action = new CBlock(`[${process.pid}-${run}] ${prompt}`);
      const started = performance.now();
      const { thunk } = await backend.generateFromContext(action, new ChatContext(), {
        modelOptions: { maxNewTokens: tokens, temperature: 0, ignoreEos: true },
      });
      let first = 0;
      let count = 0;
      for await (const _delta of thunk) {
        if (count++ === 0) first = performance.now();
      }
      const ended = performance.now();
      const generated = thunk.generation.usage?.completionTokens ?? count;
      if (run === 0) continue; // warm-up
      firstTokens.push(first - started);
      rates.push(((generated - 1) * 1000) / (ended - first));
    }
  } finally {
    await backend[Symbol.asyncDispose]();
  }
  process.stdout.write(
    `${JSON.stringify({ firstTokenMs: median(firstTokens), tokensPerSecond: median(rates) })}\n`,
  );
}

function measure(root) {
  const output = execFileSync(
    process.execPath,
    [new URL(import.meta.url).pathname, "--child", root, "--tokens", flags.tokens, "--runs", flags.runs],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  return JSON.parse(output.trim().split("\n").at(-1));
}

if (flags.child) {
  await child(flags.child);
} else {
  if (!flags.before)
    throw new Error("Pass --before <checkout> (a built older checkout) to compare against --after.");
  const builds = { before: resolve(flags.before), after: resolve(flags.after) };
  const rows = { before: [], after: [] };
  const ratios = { firstToken: [], tokensPerSecond: [] };
  for (let round = 0; round < Number(flags.rounds); round++) {
    const order = round % 2 === 0 ? ["before", "after"] : ["after", "before"];
    const result = {};
    for (const name of order) result[name] = measure(builds[name]);
    rows.before.push(result.before);
    rows.after.push(result.after);
    ratios.firstToken.push(result.after.firstTokenMs / result.before.firstTokenMs);
    ratios.tokensPerSecond.push(result.after.tokensPerSecond / result.before.tokensPerSecond);
    process.stderr.write(`round ${round + 1}: ${JSON.stringify(result)}\n`);
  }
  const summary = (name) => ({
    firstTokenMs: median(rows[name].map((row) => row.firstTokenMs)),
    tokensPerSecond: median(rows[name].map((row) => row.tokensPerSecond)),
  });
  const spread = (values) => [Math.min(...values), Math.max(...values)];
  console.log(
    JSON.stringify(
      {
        before: { root: builds.before, ...summary("before") },
        after: { root: builds.after, ...summary("after") },
        ratio: {
          firstToken: median(ratios.firstToken),
          firstTokenSpread: spread(ratios.firstToken),
          tokensPerSecond: median(ratios.tokensPerSecond),
          tokensPerSecondSpread: spread(ratios.tokensPerSecond),
        },
        rounds: Number(flags.rounds),
        tokens: Number(flags.tokens),
        runsPerRound: Number(flags.runs),
      },
      null,
      2,
    ),
  );
}
