// `models evaluate --task text` recomputes bits per character from the model's own prompt
// log-probabilities (heldOutBitsPerCharacter), each held-out fortune read from BOS, long ones in
// overlapping windows that score every token once.
import { describe, expect, it } from "vitest";
import { trainedPresetPath } from "../../src/gguf/trained-presets.js";
import { fortunesText, loadFortunes } from "../../src/training/fortunes-corpus.js";
import { heldOutBitsPerCharacter } from "../../src/training/text-evaluation.js";

const path = trainedPresetPath("tiny-text");

describe("heldOutBitsPerCharacter", () => {
  it("scores every character of the held-out fortunes once, far below the random start", async () => {
    const { heldOut } = fortunesText(await loadFortunes(), 0.05, 1);
    const documents = heldOut.slice(0, 20);
    const loss = await heldOutBitsPerCharacter(path, documents, { window: 256 });
    const characters = documents.reduce((sum, document) => sum + document.length + 2, 0);
    expect(loss.characters).toBe(characters);
    // A character-level vocabulary: one token per printable ASCII character.
    expect(loss.scoredTokens).toBe(characters);
    // Random start: 8.51 bits; the committed model: ~2.5-2.6 on all 236 held-out fortunes.
    expect(loss.bitsPerCharacter).toBeGreaterThan(1.5);
    expect(loss.bitsPerCharacter).toBeLessThan(3.2);
  }, 120_000);

  it("windows a long document so that each token is scored once, with context from its own document", async () => {
    // Within the 256 positions the model was trained on, so the whole reading is a fair reference.
    const long = "The quick brown fox jumps over the lazy dog. ".repeat(5).trim();
    const whole = await heldOutBitsPerCharacter(path, [long], { window: 256 });
    const windowed = await heldOutBitsPerCharacter(path, [long], { window: 64 });
    expect(windowed.windowedDocuments).toBe(1);
    expect(whole.windowedDocuments).toBe(0);
    expect(windowed.scoredTokens).toBe(long.length + 2);
    expect(whole.scoredTokens).toBe(long.length + 2);
    // A repeated sentence becomes predictable once seen: both readings learn it from context, so the
    // windowed one (at least 32 tokens of context) stays close to the whole one, not at a cold start.
    expect(Math.abs(windowed.bitsPerCharacter - whole.bitsPerCharacter)).toBeLessThan(1);
  }, 120_000);

  it("scores text unlike the corpus far worse than a held-out fortune", async () => {
    const { heldOut } = fortunesText(await loadFortunes(), 0.05, 1);
    const fortune = await heldOutBitsPerCharacter(path, heldOut.slice(0, 5));
    const noise = await heldOutBitsPerCharacter(path, ["qZ8#kX!vP0@wJ3$mQ7%bN1^tY6&hL4*", "9xR_2Vz+Kd;G5|cF"]);
    expect(noise.bitsPerCharacter).toBeGreaterThan(fortune.bitsPerCharacter + 2);
  }, 120_000);
});
