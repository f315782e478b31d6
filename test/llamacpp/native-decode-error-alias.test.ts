// NativeGenerationError was renamed NativeDecodeError (issue 13: "generation" names the metadata only). Code
// written against the old name keeps compiling and catching the same errors for one release.
import { describe, expect, it } from "vitest";
import { NativeDecodeError, NativeGenerationError, TesseraError } from "../../src/index.js";

describe("NativeGenerationError, the deprecated name of NativeDecodeError", () => {
  it("is the same class, so old catch blocks and isInstance checks still match", () => {
    const error = new NativeDecodeError("ERR_DECODE", "llama_decode failed: no free KV cell", "partial");
    expect(NativeGenerationError).toBe(NativeDecodeError);
    expect(error).toBeInstanceOf(NativeGenerationError);
    expect(NativeGenerationError.isInstance(error)).toBe(true);
    expect(TesseraError.isInstance(error)).toBe(true);
    expect(error.name).toBe("NativeDecodeError");
    expect(error.message).toBe(
      "llama_decode failed: no free KV cell (ERR_DECODE). The 7 characters generated before are in error.partialText.",
    );
  });

  it("knows an error made under the old name by another copy of the package (the marker kept its name)", () => {
    const fromOtherCopy = Object.assign(new Error("x"), {
      [Symbol.for("tessera.error.NativeGenerationError")]: true,
    });
    expect(NativeDecodeError.isInstance(fromOtherCopy)).toBe(true);
  });
});
