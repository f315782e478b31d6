// InvalidOptionError: the message names the option and what it received in plain words, and the old
// name InvalidSamplerOptionError still works for code written against it.
import { describe, expect, it } from "vitest";
import { InvalidOptionError, InvalidSamplerOptionError } from "../../src/index.js";

describe("InvalidOptionError", () => {
  it("says what it received with the right article", () => {
    expect(new InvalidOptionError("path", "a string", { path: "x" }).message).toBe(
      "Expected a string for path but received an Object. Nothing was started.",
    );
    expect(new InvalidOptionError("grammar", "a string", new Map()).message).toContain("received a Map.");
    expect(new InvalidOptionError("threads", "an integer", "4").message).toContain('received "4".');
  });

  it("is named InvalidOptionError, and the old name is the same class", () => {
    const error = new InvalidSamplerOptionError("topP", "a number in (0, 1]", 2);
    expect(error.name).toBe("InvalidOptionError");
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(InvalidSamplerOptionError.isInstance(new InvalidOptionError("topK", "an integer", 0.5))).toBe(
      true,
    );
    expect(error.kind).toBe("invalid-option");
  });
});
