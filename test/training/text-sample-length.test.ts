// `models evaluate --task text` samples 500 characters by default: the context must hold the token budget
// that many characters may take (up to 4 byte tokens each), not just 1024 tokens.
import { describe, expect, it } from "vitest";
import { trainedPresetPath } from "../../src/gguf/trained-presets.js";
import { sampleText } from "../../src/training/text-evaluation.js";

describe("sampleText", () => {
  it("samples the default 500 characters from tiny-text", async () => {
    const sample = await sampleText(trainedPresetPath("tiny-text"), new Set(["the"]), {
      characters: 500,
      temperature: 0.8,
      seed: 1,
    });
    expect([...sample.text]).toHaveLength(500);
    expect(sample.words).toBeGreaterThan(20);
  }, 120_000);
});
