import { toolCallClose, toolCallOpen } from "../backends/llamacpp/tool-call-format.js";

/**
 * The local backend writes tool calls into its text as `<tool_call>{…}</tool_call>` lines (and plain
 * answers never start with `<`). OpenAI clients expect them only in `tool_calls`, so while tools are
 * offered the server holds back text that is, or may become, that markup, and drops it once the calls
 * are known. Text from other backends passes through unchanged.
 */
export class ToolCallTextFilter {
  #held = "";
  #state: "undecided" | "markup" | "text";

  constructor(toolsOffered: boolean) {
    this.#state = toolsOffered ? "undecided" : "text";
  }

  /** The part of `delta` that may be sent now. */
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

  /** Characters pushed but not yet released (markup, or text that may still become markup). */
  get heldLength(): number {
    return this.#held.length;
  }

  /**
   * What is left to send at the end: the held text without its tool-call markup. Markup never becomes
   * content, also when no call could be extracted from it (a call cut off by max_tokens, a malformed one):
   * OpenAI clients would show it as the answer. Without tools offered nothing is ever held, so this is "".
   */
  finish(): string {
    const held = this.#held;
    this.#held = "";
    return stripToolCallMarkup(held);
  }
}

/** The text after the leading tool-call lines (the answer's prose, usually empty). */
export function stripToolCallMarkup(text: string): string {
  let rest = text;
  while (rest.startsWith(toolCallOpen)) {
    const end = rest.indexOf(toolCallClose);
    if (end === -1) return "";
    rest = rest.slice(end + toolCallClose.length).replace(/^\n/, "");
  }
  // A call the token limit cut off inside its opening tag is markup too.
  return toolCallOpen.startsWith(rest) ? "" : rest;
}
