import type { ServerResponse } from "node:http";

/**
 * Writes server-sent events with backpressure: when the socket's buffer is full, send() waits for
 * 'drain' before returning, so the caller stops pulling from the thunk and the producer (the native
 * decoder, for the local backend) pauses. Resolves false once the client is gone.
 */
export class SseWriter {
  readonly #response: ServerResponse;
  #beforeFirstWrite: (() => void) | undefined;

  /** `beforeFirstWrite` runs once, just before the first event is written (first-token timings). */
  constructor(response: ServerResponse, beforeFirstWrite?: () => void) {
    this.#response = response;
    this.#beforeFirstWrite = beforeFirstWrite;
  }

  get open(): boolean {
    return !this.#response.destroyed && !this.#response.writableEnded;
  }

  /**
   * The 200 and its headers. Node holds them until the first write; `flush` sends them now instead (an
   * accepted generation whose first event is still being decoded).
   */
  start(flush = false): void {
    this.#response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    if (flush) this.#response.flushHeaders();
  }

  async send(payload: unknown): Promise<boolean> {
    return this.#write(`data: ${JSON.stringify(payload)}\n\n`);
  }

  /** The closing [DONE] event, then the end of the body. */
  async done(): Promise<void> {
    if (await this.#write("data: [DONE]\n\n")) this.#response.end();
  }

  /** End without [DONE]: after an error event, clients must not take the output as complete. */
  end(): void {
    if (this.open) this.#response.end();
  }

  async #write(text: string): Promise<boolean> {
    if (!this.open) return false;
    if (this.#beforeFirstWrite !== undefined) {
      this.#beforeFirstWrite();
      this.#beforeFirstWrite = undefined;
    }
    if (this.#response.write(text)) return true;
    await new Promise<void>((resolve) => {
      const settle = () => {
        this.#response.off("drain", settle);
        this.#response.off("close", settle);
        resolve();
      };
      this.#response.on("drain", settle);
      this.#response.on("close", settle);
    });
    return this.open;
  }
}
