// A ContextOverflowError says what overflowed in the caller's words and the remedy that would help: the
// output option's name differs between LlamaContext.generate (maxTokens) and a backend (maxNewTokens),
// and a count found from the prompt's bytes is a lower bound.
import { describe, expect, it } from "vitest";
import { cliErrorMessage } from "../../src/cli/cli-error-message.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";

describe("ContextOverflowError's message", () => {
  it("names the output option the caller used", () => {
    const error = new ContextOverflowError(90, 64, 10, { maxTokensOption: "maxNewTokens" });
    expect(error.message).toContain("the prompt has 90 tokens and maxNewTokens is 10 (100 in all)");
    expect(error.message).not.toMatch(/\bmaxTokens\b/);
    expect(new ContextOverflowError(90, 64, 10).message).toContain("maxTokens is 10");
  });

  it("offers only remedies that help", () => {
    expect(new ContextOverflowError(90, 64).message).toContain(
      "Shorten the prompt, or create the context with a larger contextSize.",
    );
    expect(new ContextOverflowError(90, 64).message).not.toContain("maxTokens");
    // The prompt fits; only the output does not: say how much output fits.
    expect(new ContextOverflowError(40, 64, 100, { maxTokensOption: "maxNewTokens" }).message).toContain(
      "Lower maxNewTokens to at most 24",
    );
  });

  it("says at least for a count from the prompt's bytes, in the library and on the command line", () => {
    const error = new ContextOverflowError(300, 256, 4, { promptTokensAtLeast: true });
    expect(error.message).toContain(
      "the prompt has at least 300 tokens and maxTokens is 4 (at least 304 in all)",
    );
    expect(cliErrorMessage(error)).toContain(
      "the prompt has at least 300 tokens and --max-tokens is 4 (at least 304 in all)",
    );
    expect(cliErrorMessage(new ContextOverflowError(300, 256))).toContain("the prompt has 300 tokens,");
  });

  it("gives no output limit for a lower bound, and suggests lowering the output only where it helps", () => {
    // A lower bound under the context could still leave no room: no number, and the prompt is named first.
    const bound = new ContextOverflowError(73, 256, 5000, {
      promptTokensAtLeast: true,
      maxTokensOption: "maxNewTokens",
    });
    expect(bound.message).not.toMatch(/at most/);
    expect(bound.message).toContain("Shorten the prompt, lower maxNewTokens");
    // The prompt alone overflows: a smaller output cannot help, on any surface.
    const prompt = new ContextOverflowError(308, 256, 5, { maxTokensOption: "maxNewTokens" });
    expect(prompt.message).toContain("Shorten the prompt, or create the context with a larger contextSize.");
    expect(prompt.message).not.toMatch(/lower maxNewTokens/i);
    expect(cliErrorMessage(prompt)).not.toContain(
      "--max-tokens is 5 (313 in all). Shorten the prompt, lower",
    );
    expect(cliErrorMessage(prompt)).toMatch(/Shorten the prompt, or raise --context-size\./);
    expect(cliErrorMessage(prompt, "chat")).not.toMatch(/lower --max-tokens/);
    expect(cliErrorMessage(new ContextOverflowError(40, 256, 500))).toMatch(
      /lower --max-tokens to at most 216/,
    );
  });

  it("names contextWindow when that option set the limit", () => {
    const error = new ContextOverflowError(40, 32, undefined, { limitOption: "contextWindow" });
    expect(error.message).toBe(
      "Context overflow: the prompt has 40 tokens, but the contextWindow option allows 32 tokens. " +
        "Shorten the prompt, or raise contextWindow. Nothing was decoded.",
    );
  });
});
