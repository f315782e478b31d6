// The latency benchmark in quick mode on real parts: node-llama-cpp on the tiny model in-process, and
// a real loopback HTTP server that streams well-formed SSE on some requests and malformed SSE on others,
// so the error rate and the "never a fast run" rule are checked.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeLlamaCppTarget } from "../../src/bench/targets/node-llama-cpp-target.js";
import { OpenAIHttpTarget } from "../../src/bench/targets/openai-http-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbChart, ttfbMarkdown } from "../../src/bench/ttfb-report.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

let server: Server;
let baseUrl: string;
let requestCount = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      requestCount++;
      const parsed = JSON.parse(body) as { max_tokens: number; stream: boolean };
      response.writeHead(200, { "content-type": "text/event-stream" });
      // Every third request is broken: a truncated JSON line and no [DONE].
      if (requestCount % 3 === 0) {
        response.end('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"del\n\n');
        return;
      }
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < parsed.max_tokens) {
          response.write(
            `data: ${JSON.stringify({ choices: [{ delta: { content: ` w${sent}` } }] })}\r\n\r\n`,
          );
          sent++;
          return;
        }
        clearInterval(timer);
        response.write(`data: ${JSON.stringify({ choices: [], usage: { completion_tokens: sent } })}\n\n`);
        response.end("data: [DONE]\n\n");
      }, 2);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => {
  server?.close();
});

describe("the ttfb benchmark (quick mode)", () => {
  it("has every row and figure, and counts malformed streams as errors", async () => {
    const modelPath = await resolveDefaultModel();
    const local = new NodeLlamaCppTarget({ modelPath, threads: 1, contextSize: 512 });
    const loopback = new OpenAIHttpTarget({ name: "loopback SSE", baseUrl, model: "fake" });
    const missing = new OpenAIHttpTarget({
      name: "not built",
      baseUrl: "http://127.0.0.1:9/v1",
      model: "x",
      prepare: async () => {
        const { BenchTargetUnavailableError } = await import(
          "../../src/bench/errors/bench-target-unavailable-error.js"
        );
        throw new BenchTargetUnavailableError("not built", "run npm run bench:peers first");
      },
    });
    await local.prepare();
    const progress: number[] = [];
    const result = await runTtfbBenchmark([local, loopback, missing], {
      promptTokens: [16, 64],
      runs: 3,
      maxTokens: 6,
      warmupRuns: 0,
      countTokens: (text) => local.countTokens(text),
      onProgress: ({ done }) => progress.push(done),
    });
    expect(progress.at(-1)).toBe(2 * 2 * 3);
    expect(result.settings.promptTokensMeasured).toBe(true);
    expect(result.rows.map((row) => `${row.target}@${row.promptTokens}`)).toEqual([
      "node-llama-cpp (in-process)@16",
      "loopback SSE@16",
      "not built@16",
      "node-llama-cpp (in-process)@64",
      "loopback SSE@64",
      "not built@64",
    ]);
    for (const row of result.rows.filter((row) => row.target.startsWith("node-llama-cpp"))) {
      expect(row.errors).toBe(0);
      expect(row.firstContentMs.count).toBe(3);
      expect(row.firstContentMs.median!).toBeGreaterThan(0);
      expect(row.firstByteMs.median!).toBeLessThanOrEqual(row.firstContentMs.median!);
      expect(row.tokensPerSecond.median!).toBeGreaterThan(0);
      expect(row.interTokenMs.count).toBeGreaterThan(0);
    }
    const loopbackRows = result.rows.filter((row) => row.target === "loopback SSE");
    const errors = loopbackRows.reduce((sum, row) => sum + row.errors, 0);
    expect(errors).toBe(2);
    for (const row of loopbackRows) {
      expect(row.firstContentMs.count).toBe(row.runs - row.errors);
      expect(row.errorRate).toBeCloseTo(row.errors / row.runs, 10);
    }
    const failed = result.runs.filter((run) => !run.ok);
    expect(failed.every((run) => /unparsable SSE data|without \[DONE\]/.test(run.error!))).toBe(true);
    expect(failed.every((run) => run.firstContentMs === undefined)).toBe(true);
    expect(
      result.rows
        .filter((row) => row.target === "not built")
        .every((row) => row.skipped === "run npm run bench:peers first"),
    ).toBe(true);

    const markdown = ttfbMarkdown(result);
    expect(markdown.split("\n").filter((line) => line.startsWith("| ")).length).toBe(2 + 6);
    expect(markdown).toContain("skipped: run npm run bench:peers first");
    expect(ttfbChart(result)).toContain("not built: n/a (skipped)");
  });
});
