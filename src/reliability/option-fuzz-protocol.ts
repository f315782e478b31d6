// The JSON lines the option fuzzer and its child exchange.

/** Parent → child: run case `index` of the child's run seed. */
export interface OptionFuzzRequest {
  readonly id: number;
  readonly index: number;
}

/** Child → parent, once, before any request: the model is loaded. */
export interface OptionFuzzReady {
  readonly ready: true;
  readonly vocabSize: number;
}

/** What a case ended in, when the child survived it. */
export interface OptionFuzzReply {
  readonly id: number;
  /** ok: every call worked; typed-error: some call threw a TesseraError; untyped-error: something else. */
  readonly outcome: "ok" | "typed-error" | "untyped-error";
  /** How far the case got before its first error: load, context, generate. */
  readonly stage: "load" | "context" | "generate";
  /** Error class names, in the order they were thrown. */
  readonly errors: readonly string[];
  /** The first untyped error's message (else the first typed one's). */
  readonly message?: string;
  readonly milliseconds: number;
  /** The child's peak resident memory so far (VmHWM), to find the case that raised it. */
  readonly peakRssBytes: number;
}
