import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { applicationScope } from "./gen-ai-conventions.js";

/**
 * Run `work` inside an application span (sampling, validation), made the active span so the generations
 * it starts become its children when the user registered a context manager. An exception marks the span
 * as an error and is rethrown; the span always ends.
 */
export function inApplicationSpan<R>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<R>,
): Promise<R> {
  return trace.getTracer(applicationScope).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      if (error instanceof Error) span.recordException(error);
      span.setAttribute("error.type", error instanceof Error ? error.name : "_OTHER");
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      span.end();
    }
  });
}
