import type { Span } from "../core/span.js";
import type { Formatter } from "./formatter.js";
import type { TemplateUse } from "./template-formatter.js";

/**
 * The template the action renders with, for GenerationMetadata.promptTemplate*, when the formatter can tell
 * (TemplateFormatter can; a caller's own Formatter may not, and then the fields stay null).
 */
export function templateUseOf(formatter: Formatter, action: Span): TemplateUse | null {
  const describe = (formatter as Partial<{ templateUse(span: Span): TemplateUse | null }>).templateUse;
  return typeof describe === "function" ? describe.call(formatter, action) : null;
}
