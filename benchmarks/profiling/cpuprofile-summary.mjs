#!/usr/bin/env node
// Self time per function and per file of a V8 .cpuprofile (the N largest), idle included, so a loop's
// JavaScript cost can be read per generation. Usage: node benchmarks/profiling/cpuprofile-summary.mjs FILE [N]
import { readFileSync } from "node:fs";

const [file, topText = "25"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const dt = deltas[i + 1] ?? 0;
  node.selfUs = (node.selfUs ?? 0) + dt;
}
let total = 0;
const fnTotals = new Map(),
  fileTotals = new Map();
for (const node of profile.nodes) {
  const us = node.selfUs ?? 0;
  total += us;
  const cf = node.callFrame;
  const url = cf.url.replace(/^file:\/\/.*\/(dist|src|node_modules)\//, "$1/");
  const fn = `${cf.functionName || "(anonymous)"} ${url ? url.split("/").slice(-2).join("/") + ":" + (cf.lineNumber + 1) : ""}`;
  fnTotals.set(fn, (fnTotals.get(fn) ?? 0) + us);
  const group = !url
    ? cf.functionName
    : url.startsWith("node:")
      ? "node: internals"
      : url.includes("node_modules")
        ? "node_modules/" + url.split("node_modules/")[1].split("/")[0]
        : url;
  fileTotals.set(group, (fileTotals.get(group) ?? 0) + us);
}
const top = Number(topText);
const show = (map) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(
      ([k, v]) =>
        `${(v / 1000).toFixed(1).padStart(8)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`,
    )
    .join("\n");
console.log(
  `total ${(total / 1000).toFixed(1)} ms\n-- by function (self) --\n${show(fnTotals)}\n-- by file (self) --\n${show(fileTotals)}`,
);
