// The README's "Models (GGUF)" example, minus the 700 MB preset.
import { describe, expect, it } from "vitest";
import { readGgufFile, resolveDefaultModel, resolveModel } from "../../src/index.js";

describe("the README example", () => {
  it("resolves and reads the default model", async () => {
    const tiny = await resolveDefaultModel();
    expect(await resolveModel(tiny)).toBe(tiny);
    const info = await readGgufFile(tiny);
    expect(info.tensors.length).toBe(21);
    expect(info.metadataByKey.get("llama.block_count")).toEqual({ type: "uint32", value: 2 });
  });
});
