import { ComputedThunkInvariantError } from "./errors/computed-thunk-invariant-error.js";
import { ThunkAlreadyComputedError } from "./errors/thunk-already-computed-error.js";
import { ModelOutputThunk } from "./model-output-thunk.js";

/**
 * A ModelOutputThunk guaranteed to be computed, returned by sampling strategies and synchronous helpers.
 * `ComputedModelOutputThunk.from(thunk)` does not copy: it re-types `thunk` itself and returns it. From
 * then on every write keeps the invariant (computed, value a string).
 */
export class ComputedModelOutputThunk<T = string> extends ModelOutputThunk<T> {
  // Never called: instances are existing thunks re-typed by from(), so no second object exists.
  private constructor() {
    super();
  }

  /**
   * Re-type a computed thunk as a ComputedModelOutputThunk without copying (the same object is returned,
   * so every reference sees the same state). Throws when the thunk is not computed or its value is null.
   */
  static from<T>(thunk: ModelOutputThunk<T>): ComputedModelOutputThunk<T> {
    if (!ModelOutputThunk.isInstance(thunk)) {
      throw new TypeError(
        "ComputedModelOutputThunk.from needs a ModelOutputThunk. Pass the computed thunk to wrap.",
      );
    }
    if (!thunk.isComputed()) {
      throw new ComputedThunkInvariantError(
        "thunk",
        "the thunk is not computed yet (await thunk.avalue() first)",
      );
    }
    if (typeof thunk.value !== "string") {
      throw new ComputedThunkInvariantError("value", "the thunk's value is null");
    }
    if (thunk instanceof ComputedModelOutputThunk) return thunk as ComputedModelOutputThunk<T>;
    Object.setPrototypeOf(thunk, ComputedModelOutputThunk.prototype);
    return thunk as ComputedModelOutputThunk<T>;
  }

  override get value(): string {
    return super.value as string;
  }

  override set value(value: string) {
    if (typeof value !== "string") {
      throw new ComputedThunkInvariantError(
        "value",
        `expected a string but received ${value === null ? "null" : typeof value}`,
      );
    }
    super.value = value;
  }

  override isComputed(): true {
    return true;
  }

  /** The value (already computed); prefer `.value`. */
  override async avalue(): Promise<string> {
    return this.value;
  }

  /** Always throws: a computed thunk has nothing left to stream. Use `.value`. */
  override async astream(): Promise<string> {
    throw new ThunkAlreadyComputedError();
  }
}
