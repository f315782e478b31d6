// What a round trip costs a Node process that has sat idle: the same client sends one request after
// --gaps milliseconds of idle time, to two child processes, the rows taking turns, and times the answer's
// first bytes. One child echoes raw bytes (node:net: the loopback hop and the two wake-ups, no HTTP); the
// other is the HTTP floor server of `bench ttfb` (node:http: it reads and parses the JSON body of a
// /v1/completions request and answers one SSE event at once), read two ways: with a bare node:http
// request (an options object, nothing else) and with BenchHttpClient, as the benchmark's server rows
// read; both read the body with `for await`, as those rows do. The echo row against the bare one is what
// Node's HTTP layers (server and client) cost at that idle gap; the bare row against BenchHttpClient's is
// what the benchmark's own client adds to its request. In `bench ttfb` every served request arrives after
// the other rows ran: 100-300 ms in which that server sat idle. Gap 0 sends on the next event-loop turn.
//
// The rows run in all six orders in turn, so each follows each other row equally often, and 300
// unmeasured rounds first take V8 past compiling the request paths, so the first gap measured is not
// also the one that warms them. Needs `npm run build`.
//   node benchmarks/http-idle-cost.mjs [--gaps 0,2,20,200] [--rounds 300] [--markdown]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import http from "node:http";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { failArgument, parseBenchArguments } from "./lib/bench-arguments.mjs";
import { floorCompletionRequest } from "./lib/floor-request.mjs";

const script = "http-idle-cost";
/** Unmeasured rounds before the first gap (V8 compiles each request path over its first few hundred). */
const warmUpRounds = 300;
/** A request that takes longer than this failed (a child stopped answering). */
const requestLimitMs = 10_000;

if (process.argv[2] === "--echo-child") {
  // One byte in, the same byte out, Nagle off: the cheapest answer a process can give over TCP.
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on("data", (chunk) => socket.write(chunk));
  });
  server.listen(Number(process.argv[3]), "127.0.0.1", () => process.stdout.write("ready\n"));
} else {
  await main();
}

async function main() {
  const values = parseBenchArguments(script, {
    gaps: { type: "string", default: "0,2,20,200" },
    rounds: { type: "string", default: "300" },
    markdown: { type: "boolean", default: false },
  });
  if (!/^\d+$/.test(values.rounds) || Number(values.rounds) < 10)
    failArgument(script, `--rounds must be a whole number of at least 10; got ${values.rounds}`);
  const rounds = Number(values.rounds);
  const gapWords = values.gaps.split(",");
  if (gapWords.some((word) => !/^\d+$/.test(word) || Number(word) > 1000))
    failArgument(
      script,
      `--gaps must be whole numbers of milliseconds from 0 to 1000, comma-separated; got "${values.gaps}"`,
    );
  const gaps = gapWords.map(Number);
  let bench;
  try {
    bench = {
      ...(await import("../dist/bench/bench-http-client.js")),
      ...(await import("../dist/bench/bench-children.js")),
      ...(await import("../dist/bench/server-process.js")),
      ...(await import("../dist/bench/stats.js")),
    };
  } catch {
    failArgument(script, "dist/ is not built: run `npm run build` first");
  }
  const { BenchHttpClient, ServerProcess, freePort, killBenchChildren, percentile, trackBenchChild } = bench;
  /** Median, p10 and p90 of one row's times. */
  const summarize = (values) => ({
    median: percentile(values, 0.5),
    p10: percentile(values, 0.1),
    p90: percentile(values, 0.9),
  });

  // Stopped by a signal (not only a terminal's Ctrl-C, which reaches the children too), the children go
  // with this process: SIGKILL, as a stopped child (SIGSTOP) outlives a SIGTERM.
  const stop = (signal) => {
    killBenchChildren();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // A child that dies fails the run at once instead of leaving a request waiting for it.
  let childDied = null;
  const client = new BenchHttpClient();
  let socket;
  let agent;
  let floor;
  try {
    const echoPort = await freePort();
    const echo = spawn(process.execPath, [import.meta.filename, "--echo-child", String(echoPort)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    trackBenchChild(echo);
    echo.once("exit", (code, signal) => {
      childDied ??= new Error(`the echo child exited (${signal ?? code}) during the run`);
    });
    await Promise.race([
      once(echo.stdout, "data"),
      once(echo, "exit").then(() => {
        throw new Error("the echo child exited before it listened");
      }),
    ]);
    const floorEntry = join(import.meta.dirname, "..", "dist", "bench", "http-floor-server.js");
    if (!existsSync(floorEntry)) throw new Error(`${floorEntry} is missing: run \`npm run build\` first`);
    const floorPort = await freePort();
    floor = await ServerProcess.start({
      name: "HTTP floor",
      command: process.execPath,
      args: [floorEntry, String(floorPort)],
      readyUrl: `http://127.0.0.1:${floorPort}/health`,
      readyTimeoutMs: 10_000,
    });

    socket = connect(echoPort, "127.0.0.1");
    socket.setNoDelay(true);
    await once(socket, "connect");
    // A connection that closes (its child died) fails the request waiting on it now, not at its time limit:
    // once() rejects on 'error'. The listener keeps an error with no request waiting from being thrown.
    socket.on("error", () => {});
    socket.once("close", () => socket.emit("error", new Error("the echo child's connection closed")));
    const viaEcho = async () => {
      const started = performance.now();
      const answered = once(socket, "data", { signal: AbortSignal.timeout(requestLimitMs) });
      socket.write("x");
      await answered;
      return performance.now() - started;
    };
    const { url, body, headers } = floorCompletionRequest(floorPort);
    agent = new http.Agent({ keepAlive: true });
    const bareHeaders = { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const viaBare = async () => {
      // Made before the clock starts, as bench ttfb makes its run's deadline.
      const signal = AbortSignal.timeout(requestLimitMs);
      const started = performance.now();
      const response = await new Promise((resolve, reject) => {
        const outgoing = http.request(
          {
            host: "127.0.0.1",
            port: floorPort,
            path: "/v1/completions",
            method: "POST",
            agent,
            headers: bareHeaders,
          },
          resolve,
        );
        signal.addEventListener("abort", () => outgoing.destroy(signal.reason), { once: true });
        outgoing.on("error", reject);
        outgoing.end(body);
      });
      let first = null;
      for await (const _ of response) first ??= performance.now();
      return first - started;
    };
    const viaHttp = async () => {
      const signal = AbortSignal.timeout(requestLimitMs);
      const started = performance.now();
      const response = await client.request({ method: "POST", url, headers, body, signal });
      let first = null;
      for await (const _ of response) first ??= performance.now();
      return first - started;
    };

    const send = { echo: viaEcho, bare: viaBare, http: viaHttp };
    const orders = [
      ["echo", "bare", "http"],
      ["echo", "http", "bare"],
      ["bare", "echo", "http"],
      ["bare", "http", "echo"],
      ["http", "echo", "bare"],
      ["http", "bare", "echo"],
    ];
    const runRound = async (round, gap, times) => {
      for (const name of orders[round % orders.length]) {
        if (childDied !== null) throw childDied;
        if (gap === 0) await nextTurn();
        else await sleep(gap);
        const ms = await send[name]().catch(async (error) => {
          // A child's death can reach its connection before its exit reaches this process.
          await sleep(100);
          if (childDied === null && floor.exitStatus !== null)
            childDied = new Error(`the floor child exited (${floor.exitStatus}) during the run`);
          throw childDied ?? new Error(`the ${name} row's request got no answer: ${error.message}`);
        });
        times?.[name].push(ms);
      }
    };
    for (let round = 0; round < warmUpRounds; round++) await runRound(round, 0, null);
    const rows = [];
    for (const gap of gaps) {
      const times = { echo: [], bare: [], http: [] };
      for (let round = -20; round < rounds; round++)
        await runRound(round + 60, gap, round >= 0 ? times : null);
      rows.push({
        gap,
        echo: summarize(times.echo),
        bare: summarize(times.bare),
        http: summarize(times.http),
      });
    }
    print(rows, rounds, values.markdown);
  } catch (error) {
    // Not failArgument(): its exit would skip the cleanup below.
    console.error(`${script}: ${childDied?.message ?? error.message}`);
    process.exitCode = 1;
  } finally {
    socket?.destroy();
    agent?.destroy();
    client.close();
  }
  // Its exit hook SIGKILLs the children (bench-children.js): a stopped child (SIGSTOP) outlives a SIGTERM
  // and would keep this process waiting for it.
  process.exit();
}

function print(rows, rounds, markdown) {
  const ms = (s) => `${s.median.toFixed(3)} (${s.p10.toFixed(3)}-${s.p90.toFixed(3)})`;
  if (markdown) {
    console.log(
      `${rounds} requests per row and gap after ${warmUpRounds} unmeasured rounds, the rows in all six orders in turn; ms from the request to the answer's first bytes: median (p10-p90)\n`,
    );
    console.log(
      "| idle before each request | node:net echo | HTTP floor, bare node:http | HTTP floor, BenchHttpClient | HTTP layers (bare − echo) | BenchHttpClient − bare |",
    );
    console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const row of rows) {
      const gap = row.gap === 0 ? "none (next turn)" : `${row.gap} ms`;
      console.log(
        `| ${gap} | ${ms(row.echo)} | ${ms(row.bare)} | ${ms(row.http)} | ${(row.bare.median - row.echo.median).toFixed(3)} | ${(row.http.median - row.bare.median).toFixed(3)} |`,
      );
    }
    return;
  }
  for (const row of rows) {
    console.log(
      `gap ${String(row.gap).padStart(4)} ms  echo ${ms(row.echo)}  bare node:http ${ms(row.bare)}  BenchHttpClient ${ms(row.http)}`,
    );
  }
}
