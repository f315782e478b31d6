/**
 * What kind of failure a `TesseraError` is, in terms every surface can act on without knowing the class
 * that threw it: the server picks an HTTP status from it, a caller decides whether to fix its input, retry
 * or report a bug. The union is closed on purpose: a surface maps every kind (the server's table is a
 * `Record<ErrorKind, …>`), so a new kind is a decision each surface has to make.
 */
export type ErrorKind =
  /** An option has a wrong value, type or name, or options that cannot go together: fix the option. */
  | "invalid-option"
  /** Code passed an API a value of the wrong shape or state (a function returned the wrong thing). */
  | "invalid-argument"
  /** The content given (messages, prompt variables, a file, a request body) cannot be used as it is. */
  | "invalid-input"
  /** Image or audio data (or its URL) cannot be read or fetched. */
  | "invalid-media"
  /** The input holds something this backend cannot send to its model (images to a text-only model). */
  | "unsupported-input"
  /** A JSON schema uses a construct constrained decoding cannot enforce. */
  | "unsupported-schema"
  /** A feature this backend, model or combination does not offer (no usage reported, no logits). */
  | "unsupported"
  /** The prompt (plus maxTokens) does not fit the context. */
  | "context-overflow"
  /** Something named by the caller (a model, a preset, a backend, a template) does not exist. */
  | "not-found"
  /** The credentials are missing or wrong. */
  | "unauthorized"
  /** At capacity: the same call can succeed a moment later. */
  | "busy"
  /** The caller stopped it (an AbortSignal, cancelGeneration, Ctrl-C); partial output stays readable. */
  | "cancelled"
  /** A time limit ran out. */
  | "timeout"
  /** A resource this needs (the native addon, a GPU, a remote server, a folder) cannot be reached or used. */
  | "unavailable"
  /** The object is in a state that does not allow the call (disposed, not loaded, read twice). */
  | "invalid-state"
  /** The model's (or a provider's) output cannot be used: it fails its parse, schema or tool contract. */
  | "invalid-output"
  /** A bug or an unexpected failure inside tessera or llama.cpp. */
  | "internal";
