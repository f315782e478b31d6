// The pieces around the benchmark rows: remote provider specs, server child processes that fail to
// start, and the HTTP target against a real loopback server that misbehaves.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { BenchStreamError } from "../../src/bench/errors/bench-stream-error.js";
import { BenchTargetUnavailableError } from "../../src/bench/errors/bench-target-unavailable-error.js";
import { InvalidRemoteSpecError } from "../../src/bench/errors/invalid-remote-spec-error.js";
import { parseRemoteSpec, remoteSpecs, remoteTarget } from "../../src/bench/remote-targets.js";
import { freePort, ServerProcess } from "../../src/bench/server-process.js";
import { OpenAIHttpTarget } from "../../src/bench/targets/openai-http-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbMarkdown } from "../../src/bench/ttfb-report.js";

describe("remote provider specs", () => {
  it("reads the key from the named variable, never from the spec", () => {
    const spec = parseRemoteSpec("https://api.example.com/v1,model-a,EXAMPLE_KEY", { EXAMPLE_KEY: "secret" });
    expect(spec).toEqual({
      name: "api.example.com model-a",
      baseUrl: "https://api.example.com/v1",
      model: "model-a",
      apiKey: "secret",
    });
    expect(parseRemoteSpec("http://127.0.0.1:11434/v1,llama3.2", {}).apiKey).toBeUndefined();
  });

  it("takes flags and $TESSERA_BENCH_REMOTES together", () => {
    const specs = remoteSpecs(["http://a:1/v1,m1"], {
      TESSERA_BENCH_REMOTES: " http://b:2/v1,m2  http://c:3/v1,m3 ",
    });
    expect(specs.map((spec) => spec.model)).toEqual(["m1", "m2", "m3"]);
  });

  it("probes GET /models before the runs: a redirect, a refused key or a closed port skip the row with a reason", async () => {
    const server = createServer((request, response) => {
      if (request.url === "/moved/v1/models") {
        response.writeHead(301, { location: "https://elsewhere.example/v1/models" }).end();
      } else if (request.url === "/locked/v1/models") {
        response.writeHead(401).end('{"error":"no"}');
      } else {
        response.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
      }
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const probe = (baseUrl: string) =>
      remoteTarget({ name: "p", baseUrl, model: "m" }).prepare(new AbortController().signal);
    try {
      await expect(probe(`${base}/ok/v1`)).resolves.toBeUndefined();
      await expect(probe(`${base}/moved/v1`)).rejects.toThrow(
        `HTTP 301 from ${base}/moved/v1/models (Location: https://elsewhere.example/v1/models): give the base URL it points to`,
      );
      await expect(probe(`${base}/locked/v1`)).rejects.toThrow("HTTP 401: check the API key");
      const closed = await freePort();
      await expect(probe(`http://127.0.0.1:${closed}/v1`)).rejects.toThrow(
        new RegExp(`cannot reach http://127.0.0.1:${closed}/v1: GET .* failed after \\d+ ms: ECONNREFUSED`),
      );
    } finally {
      server.close();
    }
  });

  const bad: Array<[string, RegExp]> = [
    ["http://a/v1", /expected <base URL>,<model>/],
    ["not a url,model", /base URL \(up to the first comma\) is not a URL/],
    ["file:///etc/passwd,model", /only http\(s\)/],
    ["http://a/v1,m,MISSING_VARIABLE", /MISSING_VARIABLE is not set/],
    ["http://a/v1,m,K,extra", /expected <base URL>,<model>/],
    ["http://u%zz:p@a/v1,m", /user or password has a malformed % escape/],
    ["http://u:p%E0%A4%A@a/v1,m", /user or password has a malformed % escape/],
  ];
  for (const [spec, message] of bad) {
    it(`refuses ${JSON.stringify(spec)}`, () => {
      try {
        parseRemoteSpec(spec, {});
        expect.unreachable();
      } catch (error) {
        expect(InvalidRemoteSpecError.isInstance(error)).toBe(true);
        expect((error as Error).message).toMatch(message);
      }
    });
  }
});

describe("server processes", () => {
  it("reports a server that exits before it is ready, with its last output", async () => {
    const port = await freePort();
    const start = ServerProcess.start({
      name: "broken",
      command: process.execPath,
      args: ["-e", "console.error('cannot load the model: bad magic'); process.exit(3)"],
      readyUrl: `http://127.0.0.1:${port}/health`,
    });
    await expect(start).rejects.toSatisfy(
      (error: unknown) =>
        BenchTargetUnavailableError.isInstance(error) && /exit 3.*bad magic/s.test((error as Error).message),
    );
  });

  it("reports a missing binary", async () => {
    const start = ServerProcess.start({
      name: "absent",
      command: "/nonexistent/llama-server",
      args: [],
      readyUrl: "http://127.0.0.1:9/",
    });
    await expect(start).rejects.toSatisfy((error: unknown) => BenchTargetUnavailableError.isInstance(error));
  });

  it("gives up on a server that never answers, and stops it", async () => {
    const port = await freePort();
    const start = ServerProcess.start({
      name: "silent",
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      readyUrl: `http://127.0.0.1:${port}/health`,
      readyTimeoutMs: 1500,
    });
    await expect(start).rejects.toThrow(/not ready .* after 1500 ms/);
  });
});

describe("the HTTP target against a misbehaving server", () => {
  async function serve(
    body: (request: import("node:http").IncomingMessage) => {
      status: number;
      text: string;
      headers?: Record<string, string>;
      /** Write the text, then reset the connection instead of ending the body. */
      lose?: boolean;
    },
  ) {
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        const { status, text, headers, lose } = body(request);
        response.writeHead(status, { "content-type": "text/event-stream", ...headers });
        if (lose === true) {
          response.write(text, () => setTimeout(() => request.socket.resetAndDestroy(), 20));
          return;
        }
        response.end(text);
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
  }
  const observer = () => {
    const pieces: string[] = [];
    return { pieces, firstByte() {}, content: (text: string) => pieces.push(text) };
  };
  const cases: Array<
    [string, { status: number; text: string; headers?: Record<string, string>; lose?: boolean }, RegExp]
  > = [
    ["an HTTP error", { status: 429, text: '{"error":{"message":"slow down"}}' }, /HTTP 429 .*slow down/],
    [
      "an error event after a 200",
      {
        status: 200,
        text: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"error":{"message":"overloaded"}}\n\n',
      },
      /error event: overloaded/,
    ],
    [
      "a redirect, naming where it points",
      { status: 307, text: "", headers: { location: "https://elsewhere.example/v1/chat/completions" } },
      /HTTP 307 from \S+ \(Location: https:\/\/elsewhere\.example\/v1\/chat\/completions\)\. Give the URL it points to\.$/,
    ],
    [
      "a connection lost mid-stream",
      { status: 200, text: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\n', lose: true },
      /the connection to \S+ closed before the stream ended \((ECONNRESET|aborted)\)\. The server may have crashed/,
    ],
    [
      "no [DONE]",
      { status: 200, text: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\n' },
      /without \[DONE\]/,
    ],
    [
      "a truncated event",
      { status: 200, text: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"cho' },
      /ended inside an event/,
    ],
  ];
  for (const [name, reply, message] of cases) {
    it(`fails the run on ${name}, keeping the text received`, async () => {
      const { server, baseUrl } = await serve(() => reply);
      try {
        const target = new OpenAIHttpTarget({ name: "faulty", baseUrl, model: "m" });
        const seen = observer();
        const run = target.stream({ prompt: "x", maxTokens: 4, signal: AbortSignal.timeout(5000) }, seen);
        await expect(run).rejects.toThrow(message);
        await run.catch((error: unknown) => {
          expect(BenchStreamError.isInstance(error)).toBe(true);
          if (reply.status === 200) expect((error as BenchStreamError).received).toBe("a");
        });
      } finally {
        server.close();
      }
    });
  }

  it("fails the run when the first-token timings are not JSON, naming the URL", async () => {
    const { server, baseUrl } = await serve((request) =>
      request.url?.startsWith("/debug/") === true
        ? { status: 200, text: "<html>not timings</html>" }
        : { status: 200, text: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: [DONE]\n\n' },
    );
    try {
      const target = new OpenAIHttpTarget({ name: "t", baseUrl, model: "m", firstTokenTimings: true });
      const run = target.stream({ prompt: "x", maxTokens: 1, signal: AbortSignal.timeout(5000) }, observer());
      await expect(run).rejects.toThrow(
        /\/debug\/first-token\/\S+ answered 200 with no JSON: <html>not timings/,
      );
      await run.catch((error: unknown) => expect(BenchStreamError.isInstance(error)).toBe(true));
    } finally {
      server.close();
    }
  });

  it("runs a server that closes each connection after answering with no failed run, and notes it", async () => {
    // llama-server after a streamed answer: keep-alive in its headers, then the connection closed a moment
    // later. Run alone, every second run used to fail with ECONNRESET.
    const sockets = new Set<unknown>();
    const server = createServer((request, response) => {
      sockets.add(request.socket);
      request.resume();
      request.on("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream", "keep-alive": "timeout=5, max=100" });
        response.end(
          'data: {"choices":[{"text":"ok"}],"usage":{"completion_tokens":1}}\n\ndata: [DONE]\n\n',
          () => setTimeout(() => request.socket.destroy(), 1),
        );
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const target = new OpenAIHttpTarget({ name: "closer", baseUrl, model: "m", api: "completions" });
      const result = await runTtfbBenchmark([target], {
        promptTokens: [16],
        runs: 12,
        maxTokens: 1,
        warmupRuns: 0,
      });
      expect(result.runs.filter((run) => !run.ok)).toEqual([]);
      expect(sockets.size).toBe(12);
      expect(result.settings.connectionNotes).toEqual({
        closer: expect.stringMatching(/closed each connection right after answering on it/),
      });
      expect(ttfbMarkdown(result)).toMatch(/Connections:\n\n- closer: the server closed each connection/);
    } finally {
      server.close();
    }
  });

  it("sends completions requests with the prompt when asked", async () => {
    let seenPath = "";
    const { server, baseUrl } = await serve((request) => {
      seenPath = request.url ?? "";
      return {
        status: 200,
        text: 'data: {"choices":[{"text":"ok"}],"usage":{"completion_tokens":1}}\n\ndata: [DONE]\n\n',
      };
    });
    try {
      const target = new OpenAIHttpTarget({ name: "c", baseUrl, model: "m", api: "completions" });
      const seen = observer();
      const outcome = await target.stream(
        { prompt: "x", maxTokens: 1, signal: AbortSignal.timeout(5000) },
        seen,
      );
      expect(seenPath).toBe("/v1/completions");
      expect(seen.pieces).toEqual(["ok"]);
      expect(outcome.completionTokens).toBe(1);
    } finally {
      server.close();
    }
  });
});
