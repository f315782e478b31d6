import type { ModelOptions } from "./model-options.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";
import type { Span } from "./span.js";

/** What one generation call sent and received, for inspection and tracing. */
export class GenerateLog {
  /** When the generation was logged. */
  date: Date = new Date();
  /** The prompt string or chat-message list sent to the model. */
  prompt: string | unknown[] | null = null;
  /** Identifier of the backend (for example "llamacpp::tiny"). */
  backend: string | null = null;
  modelOptions: ModelOptions | null = null;
  /** The raw output the backend's API returned. */
  modelOutput: unknown = null;
  /** The component or block that triggered the generation. */
  action: Span | null = null;
  result: ModelOutputThunk<unknown> | null = null;
  /** Whether this entry is the definitive final result (sampling may log several candidates). */
  isFinalResult = false;
  extra: Record<string, unknown> = {};

  constructor(fields: Partial<GenerateLog> = {}) {
    Object.assign(this, fields);
  }
}
