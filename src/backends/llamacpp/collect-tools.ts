import { AbstractTool } from "../../core/abstract-tool.js";
import { Component } from "../../core/component.js";
import type { Span } from "../../core/span.js";

/**
 * The tools offered to one generation, by name: from the model options, the call's options, the action's
 * representation and the actions the context says carry tools. The first tool of a name wins.
 */
export function collectTools(
  sources: ReadonlyArray<readonly AbstractTool[] | undefined>,
  spans: ReadonlyArray<Span>,
): Record<string, AbstractTool> {
  const tools: Record<string, AbstractTool> = Object.create(null);
  const add = (tool: unknown) => {
    if (AbstractTool.isInstance(tool) && !(tool.name in tools)) tools[tool.name] = tool as AbstractTool;
  };
  for (const source of sources) for (const tool of source ?? []) add(tool);
  for (const span of spans) {
    if (!Component.isInstance(span)) continue;
    const representation = span.formatForLlm();
    if (typeof representation === "string" || !representation.tools) continue;
    for (const tool of Object.values(representation.tools)) add(tool);
  }
  return tools;
}
