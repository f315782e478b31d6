import { JSONParser } from "@streamparser/json";

/** A JSON value completed by the stream: a member of the top-level container, or the top-level value. */
export interface CompletedJsonValue {
  /** The member's key or index; null for the top-level value itself. */
  readonly key: string | number | null;
  readonly value: unknown;
}

/**
 * Parses JSON incrementally (@streamparser/json) and reports each value as soon as its last character has
 * arrived: every member of the top-level object or array, then the top-level value. Leading whitespace is
 * skipped; a syntax error is kept in `error` and ends the parse (no continuation can repair it).
 */
export class JsonValueChunker {
  #parser = new JSONParser({ paths: ["$", "$.*"], keepStack: false });
  #completed: CompletedJsonValue[] = [];
  #error: Error | null = null;
  #ended = false;

  constructor() {
    this.#parser.onValue = ({ value, key, stack }) => {
      this.#completed.push({ key: stack.length === 0 ? null : (key ?? null), value });
    };
    this.#parser.onError = (error) => {
      this.#error ??= error;
    };
    this.#parser.onEnd = () => {
      this.#ended = true;
    };
  }

  /** The syntax error that ended the parse, or null. */
  get error(): Error | null {
    return this.#error;
  }

  /** True once the top-level value is complete. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Add a delta; returns the values it completed, members first, the top-level value last. */
  feed(delta: string): CompletedJsonValue[] {
    if (this.#error !== null || delta.length === 0) return [];
    try {
      this.#parser.write(delta);
    } catch (error) {
      this.#error ??= error as Error;
    }
    return this.#take();
  }

  /**
   * The text is over: a top-level number completes only here (it could have gone on with another digit),
   * and a value still open becomes the error "Unexpected end". Returns the values this completed.
   */
  end(): CompletedJsonValue[] {
    if (this.#error !== null || this.#ended) return [];
    try {
      this.#parser.end();
    } catch (error) {
      this.#error ??= error as Error;
    }
    return this.#take();
  }

  #take(): CompletedJsonValue[] {
    const completed = this.#completed;
    this.#completed = [];
    return completed;
  }
}
