import { describe, expect, it } from "vitest";
import { CBlock, ModelOutputThunk } from "../../src/core/index.js";

describe("core module graph", () => {
  it("loads without circular-import failures", async () => {
    const thunk = new ModelOutputThunk("hello");
    expect(thunk.isComputed()).toBe(true);
    expect(new CBlock("x").value).toBe("x");
  });
});
