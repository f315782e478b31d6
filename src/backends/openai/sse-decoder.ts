/** One dispatched server-sent event. */
export interface ServerSentEvent {
  /** The `event:` field; "message" when absent. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

/**
 * An incremental decoder for text/event-stream (the WHATWG rules): lines end in CRLF, LF or CR, even
 * when a chunk boundary falls between CR and LF or inside a UTF-8 sequence; `:` lines are comments;
 * several `data:` lines join with "\n"; a blank line dispatches. Written here rather than taken from the
 * openai client, whose decoder prints to the console on bad JSON and cannot report a missing [DONE].
 */
export class SseDecoder {
  readonly #textDecoder = new TextDecoder("utf-8");
  #line = "";
  #skipLineFeed = false;
  #data: string[] = [];
  #event = "";

  /** Feed bytes; returns the events they completed. */
  push(bytes: Uint8Array): ServerSentEvent[] {
    return this.#feed(this.#textDecoder.decode(bytes, { stream: true }));
  }

  /**
   * The stream ended. Returns what an event was left unterminated (a partial line or data without the
   * blank line), or null when the stream ended cleanly between events.
   */
  finish(): string | null {
    this.#feed(this.#textDecoder.decode());
    const pending = [...this.#data, this.#line].filter((part) => part.length > 0).join("\n");
    this.#data = [];
    this.#line = "";
    return pending.length > 0 ? pending : null;
  }

  #feed(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === 10 && this.#skipLineFeed && index === start) {
        // The LF of a CRLF whose CR ended the previous chunk.
        this.#skipLineFeed = false;
        start = index + 1;
        continue;
      }
      this.#skipLineFeed = false;
      if (code !== 10 && code !== 13) continue;
      this.#line += text.slice(start, index);
      const event = this.#takeLine();
      if (event !== null) events.push(event);
      if (code === 13) {
        if (index + 1 < text.length) {
          if (text.charCodeAt(index + 1) === 10) index += 1;
        } else this.#skipLineFeed = true;
      }
      start = index + 1;
    }
    this.#line += text.slice(start);
    return events;
  }

  #takeLine(): ServerSentEvent | null {
    const line = this.#line;
    this.#line = "";
    if (line.length === 0) {
      if (this.#data.length === 0) {
        this.#event = "";
        return null;
      }
      const event = { event: this.#event || "message", data: this.#data.join("\n") };
      this.#data = [];
      this.#event = "";
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    return null;
  }
}
