import type { AbstractTool } from "../../core/abstract-tool.js";
import { type ParsedToolCalls, parseToolCalls, toolCallOpen } from "./tool-call-format.js";

/**
 * While tools are offered the model writes either plain text (never starting with `<`) or
 * `<tool_call>{…}</tool_call>` lines (tool-call-format.ts). The markup is this backend's private
 * convention: text that is, or may become, markup is held back here and ends as tool-call parts, so no
 * reader of the stream (the thunk, the server) ever sees it.
 */
export class ToolCallMarkupFilter {
  #held = "";
  #state: "undecided" | "markup" | "text";

  constructor(toolsOffered: boolean) {
    this.#state = toolsOffered ? "undecided" : "text";
  }

  /** The part of `delta` that is answer text and may be sent now. */
  push(delta: string): string {
    if (this.#state === "text") return delta;
    this.#held += delta;
    if (this.#state === "markup") return "";
    if (this.#held.startsWith(toolCallOpen)) {
      this.#state = "markup";
      return "";
    }
    if (toolCallOpen.startsWith(this.#held)) return "";
    this.#state = "text";
    const released = this.#held;
    this.#held = "";
    return released;
  }

  /**
   * At the end: the held markup as calls bound to the offered tools, the calls that could not be used,
   * and the text that is not markup. Markup never becomes text, also when no call could be extracted from
   * it (a call cut off by the token limit, a malformed one). Without tools offered nothing is ever held.
   */
  finish(tools: Readonly<Record<string, AbstractTool<unknown, unknown>>>): ParsedToolCalls {
    const held = this.#held;
    this.#held = "";
    const parsed = parseToolCalls(held, tools);
    // A call the token limit cut off inside its opening tag is markup too.
    return toolCallOpen.startsWith(parsed.text) ? { ...parsed, text: "" } : parsed;
  }
}
