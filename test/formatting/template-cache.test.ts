import { describe, expect, it } from "vitest";
import { TesseraError } from "../../src/core/errors/tessera-error.js";
import { TemplateCache, TemplateNotFoundError } from "../../src/formatting/index.js";

describe("TemplateCache", () => {
  it("evicts the least recently used entry beyond its capacity", () => {
    const cache = new TemplateCache<number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1); // a is now the most recently used
    cache.set("c", 3);
    expect([cache.get("a"), cache.get("b"), cache.get("c"), cache.size]).toEqual([1, undefined, 3, 2]);
  });
});

describe("formatting errors", () => {
  it("are TesseraErrors", () => {
    expect(TesseraError.isInstance(new TemplateNotFoundError("X", ["X"], ["/t"]))).toBe(true);
  });
});
