import { Context } from "../../core/context.js";
import type { Span } from "../../core/span.js";

export interface ChatContextOptions {
  /** Send only the most recent this-many spans; null (default) sends the whole history. */
  windowSize?: number | null;
}

/** A multi-turn context: every generation sees the history (or its last `windowSize` spans). */
export class ChatContext extends Context {
  // fromPrevious() skips constructors, so the window travels from node to node through this list.
  static override propagatedFields: readonly string[] = ["windowSize"];

  // A getter, not a field: nodes made by fromPrevious() never run a constructor.
  get isChatContext(): boolean {
    return true;
  }
  readonly windowSize: number | null;

  constructor(options: ChatContextOptions = {}) {
    super();
    const windowSize = options.windowSize ?? null;
    if (windowSize !== null && (!Number.isInteger(windowSize) || windowSize < 1)) {
      throw new RangeError(`Expected a positive integer or null for windowSize but received ${windowSize}.`);
    }
    this.windowSize = windowSize;
  }

  /** An empty ChatContext with the same window size. */
  override newInstance(): ChatContext {
    return new ChatContext({ windowSize: this.windowSize });
  }

  viewForGeneration(): Span[] {
    return this.asList(this.windowSize);
  }
}
