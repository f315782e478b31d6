// Run by test-sanitize.mjs in a node process with the sanitizer environment, before any test: loads the
// sanitized addon and its CPU backend the way loadNativeAddon() does, then reads /proc/self/maps to prove
// that every llama.cpp library in the process is the instrumented copy and that libasan is loaded. A run
// that silently used node-llama-cpp's prebuilt (uninstrumented) libraries would report "clean" for
// nothing. CommonJS so that it needs neither the TypeScript sources nor a build.
"use strict";
const { readFileSync } = require("node:fs");

const [addonPath, librariesFolder] = process.argv.slice(2);
const addon = require(addonPath);
addon.loadBackends(librariesFolder);
const cpu = addon.listDevices().find((device) => device.type === "cpu");
if (cpu === undefined) throw new Error(`no CPU device after loadBackends(${librariesFolder})`);

const mapped = new Set(
  readFileSync("/proc/self/maps", "utf8")
    .split("\n")
    .map((line) => line.split(/\s+/)[5])
    .filter((path) => path?.startsWith("/")),
);
const llamaLibraries = [...mapped].filter((path) => /\/lib(llama|ggml)[^/]*\.so[^/]*$/.test(path));
const foreign = llamaLibraries.filter((path) => !path.startsWith(`${librariesFolder}/`));
const required = ["libllama.so", "libggml.so", "libggml-base.so", "libggml-cpu.so"];
const missing = required.filter(
  (name) => !llamaLibraries.some((path) => path.split("/").pop().startsWith(name)),
);
const asan = [...mapped].find((path) => /\/libasan\.so/.test(path));
const problems = [
  ...foreign.map((path) => `uninstrumented ${path} is loaded`),
  ...missing.map((name) => `${name} is not loaded from ${librariesFolder}`),
  ...(asan === undefined ? ["libasan is not loaded (LD_PRELOAD missing?)"] : []),
];
process.stdout.write(`${JSON.stringify({ problems, llamaLibraries, asan, cpu: cpu.description })}\n`);
