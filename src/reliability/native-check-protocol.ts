// The JSON lines the native load harness and its child exchange.

export interface NativeCheckRequest {
  readonly id: number;
  readonly path: string;
}

/** What the child saw: the model loaded and generated, or a typed rejection, or another exception. */
export interface NativeCheckReply {
  readonly id: number;
  readonly outcome: "generated" | "rejected" | "untyped";
  /** How far it got: load, context creation, or generation. */
  readonly stage: "load" | "context" | "generate";
  readonly errorName?: string;
  readonly message?: string;
  readonly milliseconds: number;
}
