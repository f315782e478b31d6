// What the raw-addon A/B benchmarks (native-token-cost, native-cut-by) share: loading a tessera.node
// by path without dist/, and running each variant once per round in a fresh child process, in an
// order that alternates between rounds, so a noisy minute on a shared machine hits all alike.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

// Kept here rather than imported from dist/bench/stats.js so these scripts run without a TypeScript build.
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The addon at addonPath with node-llama-cpp's prebuilt CPU libraries (what the TypeScript loader registers). */
export function loadRawAddon(addonPath) {
  const addon = createRequire(import.meta.url)(resolve(addonPath));
  const platform = `${process.platform}-${process.arch}`;
  addon.loadBackends(join(projectRoot, "node_modules", "@node-llama-cpp", platform, "bins", platform));
  return addon;
}

/**
 * Runs `node script --child <variant JSON> ...childArgs` once per variant per round and returns, by
 * variant name, the JSON each child printed last.
 */
export function runPairedRounds({ script, variants, rounds, childArgs }) {
  const results = Object.fromEntries(variants.map((variant) => [variant.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      const output = execFileSync(
        process.execPath,
        [fileURLToPath(script), "--child", JSON.stringify(variant), ...childArgs],
        { encoding: "utf8" },
      );
      results[variant.name].push(JSON.parse(output.trim().split("\n").at(-1)));
    }
  }
  return results;
}
