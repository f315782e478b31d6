import { defineConfig } from "vitest/config";

// Tests are split by what they need (issue 13), as vitest projects; `vitest run` (and so `npm test`) runs
// every project, `npm run test:<name>` one of them.
// - unit: no native addon and no browser. An explicit list, not a glob, so a new test lands in the native
//   project until someone checks it runs without the addon: `npm run test:unit` must pass on a clone with
//   no native/build and no Chromium (checked by running it in such a clone; the docs examples and the CLI
//   tests of this set use dist/, which test:unit builds first).
// - browser: pages checked in headless Chromium (Debian's `chromium` through playwright-core).
// - reliability: fuzzers and the soak with RSS and CPU thresholds (the addon with test hooks).
// - native: everything else, on the real addon and generated models.
const unit = [
  "test/architecture/import-boundaries.test.ts",
  "test/bench/concurrent-target.test.ts",
  "test/bench/paired-comparison.test.ts",
  "test/bench/redact-url-credentials.test.ts",
  "test/cli/bench-command-line.test.ts",
  "test/cli/bench-stats-and-report.test.ts",
  "test/core/class-name-of.test.ts",
  "test/cli/bench-strategies-flags.test.ts",
  "test/cli/bench-targets.test.ts",
  "test/cli/bench-token-rate.test.ts",
  "test/cli/help.test.ts",
  "test/cli/inspector-report.test.ts",
  "test/contexts/contexts.test.ts",
  "test/core/base-backend.test.ts",
  "test/core/blocks-and-components.test.ts",
  "test/core/computed-model-output-thunk.test.ts",
  "test/core/hooks-and-sampling.test.ts",
  "test/core/media-audio.test.ts",
  "test/core/media-images.test.ts",
  "test/core/model-options.test.ts",
  "test/core/model-output-thunk.test.ts",
  "test/core/readme-example.test.ts",
  "test/core/safe-download.test.ts",
  "test/core/tools.test.ts",
  "test/formatting/chat-formatter.test.ts",
  "test/formatting/template-cache.test.ts",
  "test/formatting/template-formatter.test.ts",
  "test/gguf/block-count-bound.test.ts",
  "test/gguf/default-model.test.ts",
  "test/gguf/llama-cpp-view.test.ts",
  "test/gguf/model-presets.test.ts",
  "test/gguf/model-validation.test.ts",
  "test/gguf/models-cli.test.ts",
  "test/gguf/quantization.test.ts",
  "test/gguf/reader-agreement.test.ts",
  "test/gguf/reader-bad-inputs.test.ts",
  "test/gguf/vocab-bundle.test.ts",
  "test/gguf/writer.test.ts",
  "test/gpu/gpu-layer-plan.test.ts",
  "test/llamacpp/chat-template-sandbox.test.ts",
  "test/llamacpp/json-schema-grammar.test.ts",
  "test/llamacpp/stop-sequence-matcher.test.ts",
  "test/llamacpp/tool-call-format.test.ts",
  "test/messages/chat-messages.test.ts",
  "test/messages/chunks.test.ts",
  "test/messages/components.test.ts",
  "test/messages/messages-history.test.ts",
  "test/messages/openai-stream-and-tools.test.ts",
  "test/openai/faults.test.ts",
  "test/openai/request-and-response.test.ts",
  "test/openai/seed-fidelity.test.ts",
  "test/server/load.test.ts",
  "test/server/protocol.test.ts",
  "test/server/refusals.test.ts",
  "test/server/round-trip.test.ts",
  "test/server/step-aligner.test.ts",
  "test/stdlib/components.test.ts",
  "test/stdlib/context-type.test.ts",
  "test/stdlib/functional.test.ts",
  "test/stdlib/requirements.test.ts",
  "test/stdlib/scoring-strategies.test.ts",
  "test/stdlib/session.test.ts",
  "test/stdlib/strategies.test.ts",
  "test/stdlib/stream-validation.test.ts",
  "test/stdlib/token-signals.test.ts",
  "test/strategies/pooled-strategies.test.ts",
];
const browser = [
  "test/cli/inspect-and-chat.test.ts",
  "test/cli/inspector-browser.test.ts",
  "test/browser/**/*.test.ts",
];
const reliability = ["test/reliability/**/*.test.ts"];

// Native tests run in forked processes (a crash in llama.cpp must not take the runner down),
// and at most two at a time: this machine has 2 cores and ggml spin-waits.
export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: "unit", include: unit } },
      { extends: true, test: { name: "browser", include: browser } },
      { extends: true, test: { name: "reliability", include: reliability } },
      {
        extends: true,
        test: {
          name: "native",
          include: ["test/**/*.test.ts"],
          exclude: [...unit, ...browser, ...reliability],
        },
      },
    ],
  },
});
