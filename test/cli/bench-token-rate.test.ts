// Tokens/s and inter-token latency come from when tokens arrived, read by read. A server whose tokens all
// arrive in one read gives no decode span: the figure is "n/a", never a huge rate made of the microseconds
// spent parsing one buffer (the serve row once showed 40,677 tokens/s that way).
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenAIHttpTarget } from "../../src/bench/targets/openai-http-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbMarkdown } from "../../src/bench/ttfb-report.js";

let server: Server;
let baseUrl: string;

const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const tokens = Array.from({ length: 8 }, (_, index) =>
        event({ choices: [{ delta: { content: ` t${index}` } }] }),
      );
      if (request.url?.includes("/one-read/")) {
        // Every token in one write: the client sees them in one read.
        response.end(
          `${tokens.join("")}${event({ choices: [], usage: { completion_tokens: 8 } })}data: [DONE]\n\n`,
        );
        return;
      }
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < tokens.length) {
          response.write(tokens[sent++]);
          return;
        }
        clearInterval(timer);
        response.end(`${event({ choices: [], usage: { completion_tokens: 8 } })}data: [DONE]\n\n`);
      }, 5);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
});

describe("tokens/s in the ttfb benchmark", () => {
  it('is "n/a" when every token arrived in one read, and measured from arrivals otherwise', async () => {
    const oneRead = new OpenAIHttpTarget({ name: "one read", baseUrl: `${baseUrl}/one-read/v1`, model: "x" });
    const paced = new OpenAIHttpTarget({ name: "paced", baseUrl: `${baseUrl}/paced/v1`, model: "x" });
    const result = await runTtfbBenchmark([oneRead, paced], {
      promptTokens: [16],
      runs: 2,
      maxTokens: 8,
      warmupRuns: 0,
    });
    const [single, spread] = result.rows;
    expect(single!.errors).toBe(0);
    expect(single!.firstContentMs.count).toBe(2);
    expect(single!.tokensPerSecond.count).toBe(0);
    expect(single!.interTokenMs.count).toBe(0);
    expect(spread!.tokensPerSecond.count).toBe(2);
    // 7 tokens after the first, written one every 5 ms: about 200 tokens/s. The reader's clock adds jitter
    // (a first read that comes late shortens the span), so the bounds leave room for it, while a rate made
    // of parsing microseconds (tens of thousands of tokens/s, 0.001 ms apart) stays far outside them.
    expect(spread!.tokensPerSecond.median!).toBeLessThanOrEqual(400);
    expect(spread!.interTokenMs.median!).toBeGreaterThanOrEqual(2.5);
    const line = ttfbMarkdown(result)
      .split("\n")
      .find((row) => row.startsWith("| one read"));
    expect(line).toMatch(/\| n\/a \| n\/a \|$/);
  });
});
