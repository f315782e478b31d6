import { Context } from "../../core/context.js";
import type { Span } from "../../core/span.js";

/** A context that records history but sends none of it: every generation sees only its own action. */
export class SimpleContext extends Context {
  // A getter, not a field: nodes made by fromPrevious() never run a constructor.
  get isChatContext(): boolean {
    return false;
  }

  override newInstance(): SimpleContext {
    return new SimpleContext();
  }

  viewForGeneration(): Span[] {
    return [];
  }
}
