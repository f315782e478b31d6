import { describe, expect, it } from "vitest";
import {
  ComputedModelOutputThunk,
  ComputedThunkInvariantError,
  ModelOutputThunk,
  ThunkAlreadyComputedError,
} from "../../src/core/index.js";
import { partChannel } from "../helpers/part-channel.js";

async function computedThunk(text: string): Promise<ModelOutputThunk> {
  const thunk = new ModelOutputThunk();
  const producer = partChannel(thunk);
  await producer.push(text);
  producer.end();
  await thunk.avalue();
  return thunk;
}

describe("ComputedModelOutputThunk", () => {
  it("re-types the computed thunk itself, without copying", async () => {
    const thunk = await computedThunk("final");
    thunk.meta.kept = true;
    const computed = ComputedModelOutputThunk.from(thunk);
    expect(computed).toBe(thunk);
    expect(computed).toBeInstanceOf(ComputedModelOutputThunk);
    expect(computed).toBeInstanceOf(ModelOutputThunk);
    expect(computed.value).toBe("final");
    expect(computed.meta).toEqual({ kept: true });
    expect(computed.isComputed()).toBe(true);
    expect(await computed.avalue()).toBe("final");
    expect(ComputedModelOutputThunk.from(computed)).toBe(computed);
  });

  it("rejects an uncomputed thunk", () => {
    const pending = new ModelOutputThunk();
    partChannel(pending);
    expect(() => ComputedModelOutputThunk.from(pending)).toThrow(ComputedThunkInvariantError);
    expect(() => ComputedModelOutputThunk.from(pending)).toThrow(/not computed yet/);
    expect(pending).not.toBeInstanceOf(ComputedModelOutputThunk);
  });

  it("rejects a computed thunk whose value is null, and a missing argument", () => {
    const thunk = new ModelOutputThunk("x");
    thunk.value = null;
    expect(() => ComputedModelOutputThunk.from(thunk)).toThrow(
      "Cannot set value on a ComputedModelOutputThunk: the thunk's value is null.",
    );
    expect(() => ComputedModelOutputThunk.from(undefined as unknown as ModelOutputThunk)).toThrow(TypeError);
  });

  it("enforces the invariant on every later write but allows string values and parsedRepr", async () => {
    const computed = ComputedModelOutputThunk.from(await computedThunk("draft"));
    expect(() => {
      computed.value = null as unknown as string;
    }).toThrow(ComputedThunkInvariantError);
    expect(() => {
      computed.value = 7 as unknown as string;
    }).toThrow("expected a string but received number");
    expect(computed.value).toBe("draft");
    computed.value = "tool's final answer";
    computed.parsedRepr = "parsed";
    expect(computed.value).toBe("tool's final answer");
    expect(computed.parsedRepr).toBe("parsed");
    expect(computed.isComputed()).toBe(true);
  });

  it("always refuses astream()", async () => {
    const computed = ComputedModelOutputThunk.from(new ModelOutputThunk("v"));
    await expect(computed.astream()).rejects.toBeInstanceOf(ThunkAlreadyComputedError);
    await expect(computed.astream()).rejects.toBeInstanceOf(ThunkAlreadyComputedError);
  });
});
