const marker = Symbol.for("tessera.error.MissingToolCallIdError");

/** A tool result has no `tool_call_id`, so an OpenAI-compatible server could not match it to its call. */
export class MissingToolCallIdError extends Error {
  readonly [marker] = true;

  constructor(context: string) {
    super(
      `${context}: a tool message needs the id of the tool call it answers (tool_call_id). ` +
        "Pass the id the assistant turn gave its tool call.",
    );
    this.name = "MissingToolCallIdError";
  }

  static isInstance(error: unknown): error is MissingToolCallIdError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
