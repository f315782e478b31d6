// What benchmarks/serve-idle-gap.mjs and benchmarks/serve-layers.mjs share: servers started as children and
// stopped on every way out (an interrupt included), the llama-server peer, and a streamed first-token timer.
import { resolve } from "node:path";
import { BenchHttpClient } from "../dist/bench/bench-http-client.js";
import { findPeerBinary } from "../dist/bench/peer-binaries.js";
import { freePort, ServerProcess } from "../dist/bench/server-process.js";

/**
 * The llama-server built by `npm run bench:peers` (or TESSERA_LLAMA_SERVER). Without one, `script` exits 1
 * with one line saying what to do: a clean clone has none until the peers are built.
 */
export function requireLlamaServer(script) {
  const path = findPeerBinary("llama-server");
  if (path !== null) return path;
  console.error(
    `${script}: ${
      process.env.TESSERA_LLAMA_SERVER
        ? `no llama-server at TESSERA_LLAMA_SERVER=${process.env.TESSERA_LLAMA_SERVER}: point it at a built llama-server, or unset it and run npm run bench:peers`
        : "no llama-server: run npm run bench:peers first, or set TESSERA_LLAMA_SERVER to one"
    }`,
  );
  process.exit(1);
}

/**
 * Servers this script started. One stop for every path (a signal, or the caller's finally, which an
 * interrupted request reaches too): whichever comes first stops them all, the other waits for the same
 * stop. An interrupt also stops a server still starting (ServerProcess.start's signal), since they are
 * this script's children and would otherwise outlive it.
 */
export class ServerSet {
  #started = [];
  #starting = new Set();
  #interrupted = new AbortController();
  #stopping = null;

  constructor() {
    for (const [signal, code] of [
      ["SIGINT", 130],
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ]) {
      process.once(signal, () => {
        void this.stop().finally(() => process.exit(code));
      });
    }
  }

  /**
   * Starts `command args(port)` and waits until GET /health answers; returns { name, base }. `env` adds
   * variables to this process's environment for the server.
   */
  async start(name, command, args, env = {}) {
    const port = await freePort();
    const pending = ServerProcess.start({
      name,
      command,
      args: args(port),
      readyUrl: `http://127.0.0.1:${port}/health`,
      env: { ...process.env, ...env },
      signal: this.#interrupted.signal,
    });
    this.#starting.add(pending);
    let started;
    try {
      started = await pending;
    } finally {
      this.#starting.delete(pending);
    }
    this.#started.push(started);
    // Started just as an interrupt came: the stop may have passed it by.
    if (this.#interrupted.signal.aborted) await started.stop();
    return { name, base: `http://127.0.0.1:${port}` };
  }

  /**
   * `tessera serve` on one slot, flash attention off, served as "local". With `timings`, started as
   * `bench ttfb` starts it (TESSERA_SERVE_TIMINGS=1) and named apart: its requests should then carry an
   * x-tessera-timing-id, as bench ttfb's do, so the first-token probe's own cost is measured.
   */
  startTessera(modelPath, threads, contextSize, { timings = false } = {}) {
    const name = timings ? "tessera serve, first-token timings on" : "tessera serve";
    const env = timings ? { TESSERA_SERVE_TIMINGS: "1" } : {};
    return this.start(
      name,
      process.execPath,
      (port) => [
        resolve("dist/cli/main.js"),
        "serve",
        ...["--model", modelPath, "--port", String(port), "--threads", threads],
        ...["--context-size", contextSize, "--parallel", "1", "--alias", "local", "--flash-attn", "off"],
      ],
      env,
    );
  }

  /** llama-server set up as startTessera; a failed start says which binary to check. */
  async startLlamaServer(binary, modelPath, threads, contextSize) {
    try {
      return await this.start("llama-server", binary, (port) => [
        ...["-m", modelPath, "--host", "127.0.0.1", "--port", String(port)],
        ...["-t", threads, "-c", contextSize, "-np", "1", "-fa", "off", "--no-webui"],
      ]);
    } catch (error) {
      if (this.#interrupted.signal.aborted) throw error;
      throw new Error(
        `${error.message}\nCheck the llama-server at ${binary} (TESSERA_LLAMA_SERVER, or rebuild it with npm run bench:peers).`,
        { cause: error },
      );
    }
  }

  stop() {
    this.#stopping ??= (async () => {
      this.#interrupted.abort();
      await Promise.allSettled([...this.#starting]);
      for (const server of this.#started) await server.stop();
    })();
    return this.#stopping;
  }
}

const words = "river stone garden letter window morning table bridge cloud forest".split(" ");

/** A 13-word prompt unlike the previous ones (no prefix to reuse), for request number `n`. */
export function promptNumbered(n) {
  return `${Array.from({ length: 12 }, (_, j) => words[(n * 7 + j * 3) % words.length]).join(" ")} ${n}`;
}

/** bench ttfb's client for server rows (node:http on a keep-alive agent), shared by every server. */
const client = new BenchHttpClient();

/**
 * Milliseconds from the request to the first streamed text of a greedy /v1/completions request; throws
 * naming the server when it answers an error or no text.
 */
export async function firstTextMs(server, prompt, maxTokens, extraBody = {}, extraHeaders = {}) {
  // Untimed: a server that may close its connection after answering (llama-server) has done so first.
  await client.settle(`${server.base}/v1/completions`);
  const startedAt = performance.now();
  let first = null;
  try {
    const response = await client.request({
      url: `${server.base}/v1/completions`,
      signal: AbortSignal.timeout(30_000),
      method: "POST",
      headers: { "content-type": "application/json", ...extraHeaders },
      body: JSON.stringify({
        model: "local",
        prompt,
        max_tokens: maxTokens,
        temperature: 0,
        stream: true,
        ...extraBody,
      }),
    });
    if (response.statusCode !== 200)
      throw new Error(`HTTP ${response.statusCode} ${await BenchHttpClient.text(response)}`);
    const decoder = new TextDecoder();
    for await (const bytes of response) {
      if (first === null && /"text":"[^"]/.test(decoder.decode(bytes, { stream: true }))) {
        first = performance.now() - startedAt;
      }
    }
  } catch (error) {
    throw new Error(`${server.name}: ${error.message}${error.cause ? ` (${error.cause.message})` : ""}`);
  }
  if (first === null) throw new Error(`${server.name}: no text in the stream`);
  return first;
}

export function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
