// InvalidOptionError: the message names the option and what it received in plain words, and the old
// name InvalidSamplerOptionError still works for code written against it.
import { describe, expect, it } from "vitest";
import { IncompatibleOptionsError } from "../../src/backends/llamacpp/errors/incompatible-options-error.js";
import { InvalidOptionError, InvalidSamplerOptionError } from "../../src/index.js";

describe("InvalidOptionError", () => {
  it("says what it received with the right article", () => {
    expect(new InvalidOptionError("path", "a string", { path: "x" }).message).toBe(
      "Expected a string for path but received an Object. Nothing was started.",
    );
    expect(new InvalidOptionError("grammar", "a string", new Map()).message).toContain("received a Map.");
    expect(new InvalidOptionError("threads", "an integer", "4").message).toContain('received "4".');
    expect(new InvalidOptionError("path", "a string", new URL("file:///m.gguf")).message).toContain(
      "received a URL.",
    );
    expect(new InvalidOptionError("path", "a string", new Uint8Array(2)).message).toContain(
      "received a Uint8Array.",
    );
    expect(new InvalidOptionError("x", "a string", new Int32Array(2)).message).toContain(
      "received an Int32Array.",
    );
  });

  it("is made for values that hide their kind: an anonymous class, a throwing Proxy, a null prototype", () => {
    const anonymous = new (class {})();
    Object.defineProperty(anonymous.constructor, "name", { value: "" });
    expect(new InvalidOptionError("path", "a string", anonymous).message).toContain("received an object.");
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
      },
    );
    expect(new InvalidOptionError("path", "a string", trap).message).toContain("received an object.");
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    expect(new InvalidOptionError("path", "a string", revocable.proxy).message).toContain(
      "received an object.",
    );
    expect(new InvalidOptionError("path", "a string", Object.create(null)).message).toContain(
      "received an object.",
    );
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

  it("tells its subclass IncompatibleOptionsError apart", () => {
    const incompatible = new IncompatibleOptionsError(
      "batchSize",
      1,
      "batchSize 1 is below sequences 4",
      "raise it",
    );
    expect(InvalidOptionError.isInstance(incompatible)).toBe(true);
    expect(IncompatibleOptionsError.isInstance(incompatible)).toBe(true);
    expect(IncompatibleOptionsError.isInstance(new InvalidOptionError("topK", "an integer", 0.5))).toBe(
      false,
    );
  });
});
