// bench ttfb's "http-floor" row: a real child process (dist/bench/http-floor-server.js) on 127.0.0.1 that
// loads no model, reads and parses each request, and streams one fixed text event and [DONE]; the row
// reads it as the serve rows are read. The server refuses a body that is not JSON, as a real one would,
// and a port it cannot use with a usage line.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { freePort, ServerProcess } from "../../src/bench/server-process.js";
import { httpFloorName, ttfbTargets } from "../../src/bench/ttfb-targets.js";
import { packageRoot } from "../../src/support/package-folders.js";

const entry = join(packageRoot(), "dist", "bench", "http-floor-server.js");

describe("the HTTP floor row", () => {
  it("streams one text event from a server that does no work", async () => {
    const [target] = ttfbTargets({
      modelPath: "unused: the floor loads no model",
      modelId: "none",
      threads: 1,
      contextSize: 512,
      rows: ["http-floor"],
      remotes: [],
    });
    expect(target!.name).toBe(httpFloorName);
    const signal = AbortSignal.timeout(30_000);
    await target!.prepare(signal);
    try {
      const texts: string[] = [];
      let firstBytes = 0;
      const outcome = await target!.stream(
        { prompt: "a prompt the floor parses and does not use", maxTokens: 8, signal },
        {
          firstByte: () => {
            firstBytes++;
          },
          content: (text) => {
            texts.push(text);
          },
        },
      );
      expect(texts).toEqual(["floor"]);
      expect(firstBytes).toBeGreaterThan(0);
      // One event carries no token count: the row's token rate is "n/a", never a figure from one read.
      expect(outcome.completionTokens).toBeNull();
    } finally {
      await target!.close();
    }
  }, 60_000);

  it("refuses a body that is not JSON or too large, and answers only its routes", async () => {
    const port = await freePort();
    const server = await ServerProcess.start({
      name: httpFloorName,
      command: process.execPath,
      args: [entry, String(port)],
      readyUrl: `http://127.0.0.1:${port}/health`,
    });
    try {
      // Over tessera serve's 16 MiB: refused (or the connection cut) without holding it all.
      const huge = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "x".repeat(17 * 1024 * 1024),
      }).then(
        (response) => response.status,
        () => "reset",
      );
      expect([413, "reset"]).toContain(huge);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      const otherPath = await fetch(`http://127.0.0.1:${port}/v1/embeddings`, { method: "POST", body: "{}" });
      expect(otherPath.status).toBe(404);
      const bad = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"prompt": ',
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/not JSON/);
      const missing = await fetch(`http://127.0.0.1:${port}/v1/models`);
      expect(missing.status).toBe(404);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("says how to start it when the port is not one, and which port it could not take", async () => {
    const run = (port: string) =>
      promisify(execFile)(process.execPath, [entry, port]).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
    for (const port of ["eighty", " 80", "0x50", "1e3", "0", "65536"]) {
      const failure = await run(port);
      expect(failure?.code, port).toBe(2);
      expect(failure?.stderr).toMatch(/usage: node http-floor-server\.js <port>/);
    }
    const taken = createServer();
    taken.listen(0, "127.0.0.1");
    await once(taken, "listening");
    try {
      const failure = await run(String((taken.address() as AddressInfo).port));
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toMatch(/could not listen on 127\.0\.0\.1:\d+: EADDRINUSE; pick another port/);
    } finally {
      taken.close();
    }
  });
});
