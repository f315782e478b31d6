// What a round trip costs a Node process that has sat idle: the same client sends one request after
// --gaps milliseconds of idle time, to two child processes, the rows taking turns, and times the answer's
// first bytes. One child echoes raw bytes (node:net: the loopback hop and the two wake-ups, no HTTP); the
// other is the HTTP floor server of `bench ttfb` (node:http: it reads and parses the JSON body of a
// /v1/completions request and answers one SSE event at once), read two ways: with a bare node:http
// request (options object, a 'data' listener: the least a node:http client does) and with BenchHttpClient,
// as the benchmark's server rows read. The echo row against the bare one is what Node's HTTP layers
// (server and client) cost at that idle gap; the bare row against BenchHttpClient's is what the
// benchmark's own client adds. In `bench ttfb` every served request arrives after the other rows ran,
// tens of milliseconds of idle time for that server. Gap 0 sends the next request on the next turn.
// Needs `npm run build`.
//   node benchmarks/http-idle-cost.mjs [--gaps 0,2,20] [--rounds 300] [--markdown]
import { spawn } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { BenchHttpClient } from "../dist/bench/bench-http-client.js";

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
  const { values } = parseArgs({
    options: {
      gaps: { type: "string", default: "0,2,20" },
      rounds: { type: "string", default: "300" },
      markdown: { type: "boolean", default: false },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 10) {
    console.error(`--rounds must be a whole number of at least 10; got ${values.rounds}`);
    process.exit(2);
  }
  const gaps = values.gaps.split(",").map(Number);
  if (gaps.some((gap) => !Number.isInteger(gap) || gap < 0 || gap > 1000)) {
    console.error(
      `--gaps must be whole numbers of milliseconds from 0 to 1000, comma-separated; got ${values.gaps}`,
    );
    process.exit(2);
  }
  const entry = join(import.meta.dirname, "..", "dist", "bench", "http-floor-server.js");
  const children = [];
  const client = new BenchHttpClient();
  try {
    const echoPort = await freePort();
    const echo = spawn(process.execPath, [import.meta.filename, "--echo-child", String(echoPort)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(echo);
    await once(echo.stdout, "data");
    const floorPort = await freePort();
    children.push(
      spawn(process.execPath, [entry, String(floorPort)], { stdio: ["ignore", "ignore", "inherit"] }),
    );
    await waitForHealth(floorPort);

    const socket = connect(echoPort, "127.0.0.1");
    socket.setNoDelay(true);
    await once(socket, "connect");
    const viaEcho = async () => {
      const started = performance.now();
      const answered = once(socket, "data");
      socket.write("x");
      await answered;
      return performance.now() - started;
    };
    const url = `http://127.0.0.1:${floorPort}/v1/completions`;
    const body = JSON.stringify({
      model: "local",
      prompt: "hello world ".repeat(8),
      max_tokens: 8,
      stream: true,
    });
    const headers = { "content-type": "application/json", accept: "text/event-stream" };
    const agent = new http.Agent({ keepAlive: true });
    const bareHeaders = { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const viaBare = () =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        let first = null;
        const outgoing = http.request(
          {
            host: "127.0.0.1",
            port: floorPort,
            path: "/v1/completions",
            method: "POST",
            agent,
            headers: bareHeaders,
          },
          (response) => {
            response.on("data", () => {
              first ??= performance.now();
            });
            response.on("end", () => resolve(first - started));
            response.on("error", reject);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(body);
      });
    const viaHttp = async () => {
      // Made before the clock starts, as bench ttfb makes its run's deadline.
      const signal = AbortSignal.timeout(10_000);
      const started = performance.now();
      const response = await client.request({ method: "POST", url, headers, body, signal });
      let first = null;
      for await (const _ of response) first ??= performance.now();
      return first - started;
    };

    const rows = [];
    for (const gap of gaps) {
      const times = { echo: [], bare: [], http: [] };
      const send = { echo: viaEcho, bare: viaBare, http: viaHttp };
      for (let round = -20; round < rounds; round++) {
        // Each round in the other order, so no row always follows the same one.
        const order = round % 2 === 0 ? ["echo", "bare", "http"] : ["http", "bare", "echo"];
        for (const name of order) {
          if (gap === 0) await nextTurn();
          else await sleep(gap);
          const ms = await send[name]();
          if (round >= 0) times[name].push(ms);
        }
      }
      rows.push({ gap, echo: summary(times.echo), bare: summary(times.bare), http: summary(times.http) });
    }
    socket.destroy();
    agent.destroy();
    print(rows, rounds, values.markdown);
  } finally {
    client.close();
    for (const child of children) child.kill();
  }
}

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9) };
}

function print(rows, rounds, markdown) {
  const ms = (s) => `${s.median.toFixed(3)} (${s.p10.toFixed(3)}-${s.p90.toFixed(3)})`;
  if (markdown) {
    console.log(
      `${rounds} requests per row and gap, ms from the request to the answer's first bytes: median (p10-p90)\n`,
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

async function freePort() {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitForHealth(port) {
  for (let tries = 0; ; tries++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.ok) return;
    } catch (error) {
      if (tries > 100) throw new Error(`the floor server did not start: ${error.message}`);
    }
    await sleep(50);
  }
}
