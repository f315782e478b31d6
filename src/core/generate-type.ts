/** Which functions can extract a value from a ModelOutputThunk. */
export const GenerateType = {
  /** No generation function is set: the thunk is already computed or uninitialised. */
  none: "none",
  /** The generation is async-compatible: avalue/astream/iteration may be used. */
  async: "async",
  /** The generation is synchronous only. */
  sync: "sync",
} as const;

export type GenerateType = (typeof GenerateType)[keyof typeof GenerateType];
