import type { Span } from "../core/span.js";
import type { Message } from "../messages/components/message.js";

/** Turns components into prompt text and context views into chat messages; backends depend on this. */
export interface Formatter {
  /** The span rendered as text (a component through its template, a block as its value). */
  print(span: Span): string;
  /** A context view (`context.viewForGeneration()`) as chat messages. */
  toChatMessages(spans: readonly Span[]): Message[];
}
