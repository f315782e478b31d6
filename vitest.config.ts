import { defineConfig } from "vitest/config";

// Native tests run in forked processes (a crash in llama.cpp must not take the runner down),
// and at most two at a time: this machine has 2 cores and ggml spin-waits.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
