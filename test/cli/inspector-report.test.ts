import { describe, expect, it } from "vitest";
import {
  buildInspectorReport,
  embedJson,
  InspectorTraceMismatchError,
  renderInspectorPage,
} from "../../src/inspector/index.js";
import { sampleTraces, sampleVocabulary } from "./fixtures/sample-traces.js";

const fixedDate = new Date("2026-11-29T20:00:00Z");

describe("the inspector report", () => {
  it("joins raw and processed traces token by token", () => {
    const { raw, processed } = sampleTraces(9);
    const report = buildInspectorReport({
      modelId: "fixture",
      prompt: "Say",
      raw,
      processed,
      generatedAt: fixedDate,
    });
    expect(report.tokens).toHaveLength(9);
    expect(report.tokens.map((token) => token.text).join("")).toBe("The cat sat on the mat.\n dog");
    const first = report.tokens[0]!;
    expect(first.processed!.rank).toBe(1);
    expect(first.raw!.rank).toBe(1);
    // Processing (temperature 0.7, top-3) sharpens the chosen token's probability.
    expect(first.processed!.logprob!).toBeGreaterThan(first.raw!.logprob!);
    // Cut alternatives are null (the page shows "cut"), never -Infinity, which JSON cannot carry.
    expect(first.processed!.top.slice(3).every((alternative) => alternative.logprob === null)).toBe(true);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it("computes exact entropy and rank from full vectors, and a lower bound from top-k", () => {
    const full = buildInspectorReport({ modelId: "m", prompt: "p", ...sampleTraces(4, { full: true }) });
    const topK = buildInspectorReport({ modelId: "m", prompt: "p", ...sampleTraces(4, { topK: 2 }) });
    for (let index = 0; index < 4; index++) {
      const exact = full.tokens[index]!.raw!;
      const bound = topK.tokens[index]!.raw!;
      expect(exact.entropyExact).toBe(true);
      expect(bound.entropyExact).toBe(false);
      expect(bound.entropyBits!).toBeLessThanOrEqual(exact.entropyBits! + 1e-9);
      expect(exact.entropyBits!).toBeLessThanOrEqual(Math.log2(sampleVocabulary.length) + 1e-9);
      expect(exact.top).toHaveLength(sampleVocabulary.length);
      expect(exact.logprob).toBeCloseTo(bound.logprob!, 5);
    }
    // Three tokens survive top-3 in the processed full vector: entropy at most log2(3).
    expect(full.tokens[0]!.processed!.entropyBits!).toBeLessThanOrEqual(Math.log2(3) + 1e-9);
  });

  it("reports a chosen token outside the captured alternatives as unranked", () => {
    const { raw } = sampleTraces(2, { topK: 1 });
    raw.steps[1] = {
      ...raw.steps[1]!,
      top: raw.steps[1]!.top.map((alternative) => ({ ...alternative, token: 999 })),
    };
    const report = buildInspectorReport({ modelId: "m", prompt: "p", raw, processed: null });
    expect(report.tokens[1]!.raw!.rank).toBeNull();
    expect(report.tokens[1]!.processed).toBeNull();
  });

  it("refuses traces that do not describe one generation", () => {
    const short = sampleTraces(3);
    const long = sampleTraces(4);
    expect(() =>
      buildInspectorReport({ modelId: "m", prompt: "p", raw: long.raw, processed: short.processed }),
    ).toThrow(/3 steps but the raw trace has 4/);
    expect(() => buildInspectorReport({ modelId: "m", prompt: "p", raw: null, processed: null })).toThrow(
      InspectorTraceMismatchError,
    );
    const swapped = sampleTraces(3);
    swapped.raw.steps[2] = { ...swapped.raw.steps[2]!, token: 11 };
    try {
      buildInspectorReport({ modelId: "m", prompt: "p", ...swapped });
      expect.unreachable();
    } catch (error) {
      expect(InspectorTraceMismatchError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/step 2 chose token/);
    }
  });
});

describe("the inspector page", () => {
  it("embeds the report so that no prompt or token can close the script element", () => {
    const { raw, processed } = sampleTraces(10);
    const prompt = "</script><script>alert(1)</script> $& $1 \u2028";
    const report = buildInspectorReport({ modelId: "m", prompt, raw, processed, title: '<T & "q">' });
    const page = renderInspectorPage(report);
    expect(page).not.toContain("</script><script>alert(1)");
    expect(page).toContain("<title>&#60;T &#38; &#34;q&#34;&#62;</title>");
    const embedded = page.match(/<script type="application\/json" id="report-data">([^<]*)<\/script>/)![1]!;
    expect(JSON.parse(embedded).prompt).toBe(prompt);
    expect(JSON.parse(embedJson({ text: "<!-- x -->" }))).toEqual({ text: "<!-- x -->" });
  });

  it("is self-contained: no external URL is loaded", () => {
    const page = renderInspectorPage(buildInspectorReport({ modelId: "m", prompt: "p", ...sampleTraces(3) }));
    expect(page).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(page).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(page).toContain("default-src 'none'");
  });
});
