import { describe, expect, it } from "vitest";
import { formatRate, markdownTable } from "../../src/bench/markdown-table.js";
import { median, p90, percentile, summarize } from "../../src/bench/stats.js";
import { svgBarChart } from "../../src/bench/svg-bar-chart.js";
import { buildUniquePrompt } from "../../src/bench/unique-prompts.js";

describe("benchmark statistics", () => {
  it("interpolates percentiles between ranks and ignores non-finite samples", () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(median(values)).toBe(5.5);
    expect(p90(values)).toBeCloseTo(9.1, 10);
    expect(percentile([7], 0.9)).toBe(7);
    expect(median([])).toBeNull();
    expect(summarize([3, Number.NaN, 1, Number.POSITIVE_INFINITY, 2])).toEqual({
      count: 3,
      median: 2,
      p90: 2.8,
      mean: 2,
      min: 1,
      max: 3,
    });
    expect(() => percentile(values, 1.5)).toThrow(RangeError);
  });
});

describe("benchmark tables and charts", () => {
  it("escapes pipes so a cell cannot break the table", () => {
    const table = markdownTable([{ title: "name" }, { title: "ms", align: "right" }], [["a|b", "1.0"]]);
    expect(table).toBe("| name | ms |\n| :--- | ---: |\n| a\\|b | 1.0 |\n");
    expect(() => markdownTable([{ title: "x" }], [["1", "2"]])).toThrow(/Expected 1 cells/);
    expect(formatRate(0.25)).toBe("25.0%");
    expect(formatRate(0)).toBe("0%");
  });

  it("draws one bar per value, a whisker per p90 and a note for skipped rows", () => {
    const svg = svgBarChart({
      title: "TTFB <test>",
      unit: "ms",
      groups: [
        {
          label: "16 tokens",
          bars: [
            { series: "tessera", value: 10, whisker: 14 },
            { series: "llama-server", value: null, note: "not built" },
          ],
        },
        { label: "256 tokens", bars: [{ series: "tessera", value: 40, whisker: 41 }] },
      ],
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("TTFB &#60;test&#62;");
    expect(svg.match(/<rect [^>]*rx="2" fill="#3559c7"><title>/g)).toHaveLength(2);
    expect(svg).toContain("llama-server: n/a (not built)");
    expect(svg).not.toMatch(/NaN|undefined/);
  });
});

describe("unique prompts", () => {
  it("reaches the requested token count with a tokenizer and never repeats", async () => {
    const countWords = async (text: string) => text.split(/\s+/).length + 3;
    const first = await buildUniquePrompt(64, 1, countWords);
    const second = await buildUniquePrompt(64, 2, countWords);
    expect(first.tokens).toBe(64);
    expect(first.measured).toBe(true);
    expect(first.text).not.toBe(second.text);
    expect(first.text.slice(0, 12)).not.toBe(second.text.slice(0, 12));
    await expect(buildUniquePrompt(2, 1)).rejects.toThrow(RangeError);
  });
});
