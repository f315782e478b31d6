// Which tokenizer sizes bench ttfb's prompts (prompt-token-counter.ts): node-llama-cpp's first, then a
// tessera row's, then one the caller loads; a row whose model did not load is passed over instead of
// ending the benchmark. The targets are plain objects: this is control flow, not tokenization.
import { describe, expect, it } from "vitest";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { promptTokenCounter } from "../../src/bench/prompt-token-counter.js";

function target(name: string, count?: (text: string) => Promise<number>): BenchTarget {
  return {
    name,
    transport: "in-process",
    async prepare() {},
    async close() {},
    async stream() {
      return { completionTokens: 0 };
    },
    ...(count !== undefined && { countTokens: count }),
  };
}

const notLoaded = async () => {
  throw new Error("prepare() the node-llama-cpp target first");
};

describe("the prompt-token counter", () => {
  it("asks node-llama-cpp first, whatever the rows' order", async () => {
    const count = promptTokenCounter(
      [target("tessera", async () => 1), target("node-llama-cpp", async () => 2)],
      null,
    )!;
    expect(await count("x")).toBe(2);
  });

  it("passes over a row that did not load, and loads its own tokenizer once when no row can count", async () => {
    const calls: string[] = [];
    const count = promptTokenCounter(
      [
        target("node-llama-cpp", async () => {
          calls.push("node-llama-cpp");
          return notLoaded();
        }),
        target("tessera", async () => {
          calls.push("tessera");
          return 7;
        }),
      ],
      null,
    )!;
    expect(await count("a")).toBe(7);
    expect(await count("b")).toBe(7);
    // The failed counter is tried once, not on every prompt.
    expect(calls).toEqual(["node-llama-cpp", "tessera", "tessera"]);
    // Two prompts sized at once, both seeing the failure: the row after it is not dropped too.
    const both = promptTokenCounter(
      [target("node-llama-cpp", notLoaded), target("tessera", async () => 9)],
      null,
    )!;
    expect(await Promise.all([both("a"), both("b")])).toEqual([9, 9]);

    let loads = 0;
    const own = promptTokenCounter([target("node-llama-cpp", notLoaded)], async () => {
      loads++;
      return (text) => text.length;
    })!;
    expect(await Promise.all([own("abc"), own("hello")])).toEqual([3, 5]);
    expect(loads).toBe(1);
  });

  it("estimates (no counter) when no row counts and none is given, and says so when every row failed", async () => {
    expect(promptTokenCounter([target("llama-server")], null)).toBeUndefined();
    const count = promptTokenCounter([target("node-llama-cpp", notLoaded)], null)!;
    await expect(count("x")).rejects.toThrow("no row could size the prompts");
  });
});
