import { describe, expect, it } from "vitest";
import { StepAligner } from "../../src/server/step-aligner.js";

const steps = (...texts: string[]) => texts.map((text) => ({ text }));

describe("StepAligner", () => {
  it("gives a chunk the steps whose text it carries, not the ones decoded ahead", () => {
    const aligner = new StepAligner();
    const decoded = steps("He", "llo", " wor", "ld");
    expect(aligner.take(decoded, 2)).toEqual({ from: 0, to: 1 });
    expect(aligner.take(decoded, 5)).toEqual({ from: 1, to: 2 });
    // Text held back (a possible stop sequence): its step waits too.
    expect(aligner.take(decoded, 7)).toEqual({ from: 2, to: 2 });
    expect(aligner.take(decoded, 11)).toEqual({ from: 2, to: 4 });
  });

  it("keeps a token ending inside a character with the token that completes it", () => {
    const aligner = new StepAligner();
    const decoded = steps("a", "", "€");
    expect(aligner.take(decoded.slice(0, 2), 1)).toEqual({ from: 0, to: 1 });
    expect(aligner.take(decoded, 2)).toEqual({ from: 1, to: 3 });
  });

  it("gives the tokens of a character the output ended inside to the replacement text", () => {
    const aligner = new StepAligner();
    const decoded = steps("a", "");
    expect(aligner.take(decoded, 1)).toEqual({ from: 0, to: 1 });
    expect(aligner.take(decoded, 2)).toEqual({ from: 1, to: 2 });
  });

  it("leaves the steps of text never sent (a stop sequence) to the last chunk", () => {
    const aligner = new StepAligner();
    const decoded = steps("yes", "\n\n");
    expect(aligner.take(decoded, 3)).toEqual({ from: 0, to: 1 });
    expect(aligner.rest(decoded)).toEqual({ from: 1, to: 2 });
    expect(aligner.rest(decoded)).toEqual({ from: 2, to: 2 });
  });
});
