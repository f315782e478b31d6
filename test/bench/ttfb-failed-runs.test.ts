// Why runs failed, under `bench ttfb`'s table: a row that failed every run used to show only its error
// rate, the reason being in the JSON alone. The targets are plain objects (the report's control flow).
import { describe, expect, it } from "vitest";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbMarkdown } from "../../src/bench/ttfb-report.js";

function target(name: string, fail: (call: number) => string | null): BenchTarget {
  let calls = 0;
  return {
    name,
    transport: "http",
    async prepare() {},
    async close() {},
    async stream(_request, observer) {
      const message = fail(calls++);
      if (message !== null) throw new Error(message);
      observer.content("x");
      return { completionTokens: 1 };
    },
  };
}

describe("bench ttfb's failed runs", () => {
  it("are listed under the table per row, with the most common message, cut at 300 characters", async () => {
    const long = `the server sent an error event: ${"x".repeat(400)}`;
    const result = await runTtfbBenchmark(
      [
        target("fine", () => null),
        target("down", () => "connect ECONNREFUSED 127.0.0.1:9\nsecond line"),
        target("flaky", (call) => (call % 2 === 0 ? null : call === 1 ? "timed out after 5 ms" : long)),
      ],
      { promptTokens: [16, 32], runs: 4, maxTokens: 2, warmupRuns: 0, order: "fixed" },
    );
    const markdown = ttfbMarkdown(result);
    expect(markdown).toContain("- down: 8 of 8 runs failed: connect ECONNREFUSED 127.0.0.1:9\n");
    expect(markdown).not.toContain("second line");
    expect(markdown).toContain(
      `- flaky: 4 of 8 runs failed (3 of them; 1 other message): ${long.slice(0, 300)}…`,
    );
    expect(markdown).not.toMatch(/- fine:/);
  });

  it("quote a server's message as text: no markup or HTML of its own reaches the page", async () => {
    const result = await runTtfbBenchmark(
      [
        target(
          "remote",
          () => "HTTP 502 <script>alert(1)</script> **bold** `code` a|b [x](y) &amp; SOME_NAME _em_",
        ),
      ],
      { promptTokens: [16], runs: 1, maxTokens: 2, warmupRuns: 0 },
    );
    expect(ttfbMarkdown(result)).toContain(
      "- remote: 1 of 1 runs failed: HTTP 502 \\<script\\>alert(1)\\</script\\> \\*\\*bold\\*\\* \\`code\\` a\\|b \\[x\\](y) \\&amp; SOME_NAME \\_em\\_",
    );
  });

  it("keep a message with bare carriage returns on its own line item", async () => {
    const result = await runTtfbBenchmark([target("remote", () => "oops\r# Injected heading\r- fake item")], {
      promptTokens: [16],
      runs: 1,
      maxTokens: 2,
      warmupRuns: 0,
    });
    expect(ttfbMarkdown(result)).toMatch(/- remote: 1 of 1 runs failed: oops(\n|$)/);
    expect(ttfbMarkdown(result)).not.toContain("Injected");
  });

  it("escape a skipped row's note in the table: a remote's redirect target is text", async () => {
    const skipped: BenchTarget = {
      name: "remote",
      transport: "http",
      async prepare() {
        throw new Error("HTTP 302 (Location: /x<img src=x onerror=alert(1)>_**b**_)\r# h");
      },
      async close() {},
      async stream() {
        return { completionTokens: 0 };
      },
    };
    const markdown = ttfbMarkdown(
      await runTtfbBenchmark([skipped], { promptTokens: [16], runs: 1, maxTokens: 2, warmupRuns: 0 }),
    );
    expect(markdown).toContain("\\<img src=x onerror=alert(1)\\>\\_\\*\\*b\\*\\*\\_");
    expect(markdown).not.toMatch(/[^\\]<img/);
    expect(markdown.split("\n").filter((line) => line.startsWith("# "))).toEqual([]);
  });

  it("add nothing when every run succeeded", async () => {
    const result = await runTtfbBenchmark([target("fine", () => null)], {
      promptTokens: [16],
      runs: 2,
      maxTokens: 2,
      warmupRuns: 0,
    });
    expect(ttfbMarkdown(result)).not.toContain("Failed runs");
  });
});
