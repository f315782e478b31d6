// classNameOf: how error messages name an object they were given.
import { describe, expect, it } from "vitest";
import { classNameOf } from "../../src/core/errors/class-name-of.js";

describe("classNameOf", () => {
  it("gives the class with its article", () => {
    expect(classNameOf({})).toBe("an Object");
    expect(classNameOf([])).toBe("an Array");
    expect(classNameOf(new Map())).toBe("a Map");
    expect(classNameOf(new URL("file:///m.gguf"))).toBe("a URL");
    expect(classNameOf(new Uint8Array(1))).toBe("a Uint8Array");
  });

  it("says 'an object' when the class cannot be named", () => {
    expect(classNameOf(Object.create(null))).toBe("an object");
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
      },
    );
    expect(classNameOf(trap)).toBe("an object");
  });
});
