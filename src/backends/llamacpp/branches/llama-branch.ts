// One branch of a branching generation: a prompt (ids) and the tokens read from it so far. While held,
// the branch keeps its native generation open and paused (nobody pulls, so the bounded queue fills and
// decoding waits): its sequence stays busy, so no other generation takes its cells, and a fork copies
// them. Released, it ended its generation and gave its sequence back: its cells stay only until the
// next generation on that sequence overwrites them from where their tokens differ. Reading on starts a
// new generation from its tokens, which prefills whatever no sequence still holds.
import { InvalidForkError } from "../errors/invalid-fork-error.js";
import type { LlamaContext } from "../llama-context.js";
import type { GenerateTokensOptions } from "../native-generate-options.js";
import type { TokenEvent, TokenStream, TokenStreamResult } from "../token-stream.js";

/** Options of every generation of a branch (maxTokens is left out: the reader says how many to read). */
export type BranchGenerateOptions = Omit<GenerateTokensOptions, "maxTokens" | "signal" | "promptLogprobs">;

/** @internal What a branch asks of its pool. */
export interface BranchHost {
  readonly context: LlamaContext;
  /** Makes room for one more held generation (releases the least recently used held branch). */
  acquire(branch: LlamaBranch): Promise<void>;
  touch(branch: LlamaBranch): void;
  dropped(branch: LlamaBranch): void;
}

export class LlamaBranch {
  readonly id: number;
  readonly promptTokens: Int32Array;
  readonly options: BranchGenerateOptions;
  /** The branch this one was forked from, and where. */
  readonly parent: { readonly branch: LlamaBranch; readonly atTokenIndex: number } | undefined;
  readonly #host: BranchHost;
  readonly #events: TokenEvent[] = [];
  #stream: TokenStream | undefined;
  #iterator: AsyncIterator<TokenEvent> | undefined;
  #finishReason: "stop" | "length" | undefined;
  #closed = false;
  #reading: Promise<unknown> = Promise.resolve();
  #busy = 0;
  /** Set when a generation begins, cleared by the first read of it: a fork nobody has read yet. */
  #fresh = false;
  /** Results of the generations this branch ran, oldest first (one more each time it is prefilled again). */
  readonly generations: TokenStreamResult[] = [];

  /** @internal Created by LlamaBranchPool. */
  constructor(
    host: BranchHost,
    id: number,
    promptTokens: Int32Array,
    options: BranchGenerateOptions,
    parent?: { branch: LlamaBranch; atTokenIndex: number },
  ) {
    this.#host = host;
    this.id = id;
    this.promptTokens = promptTokens;
    this.options = options;
    this.parent = parent;
  }

  /** Events read so far (token, text, logprob, captured logits). */
  get events(): readonly TokenEvent[] {
    return this.#events;
  }
  get tokens(): number[] {
    return this.#events.map((event) => event.token);
  }
  get text(): string {
    return this.#events.map((event) => event.text).join("");
  }
  /** True while the branch keeps a paused generation, and so a sequence and its cells. */
  get held(): boolean {
    return this.#iterator !== undefined;
  }
  /** True while a read is in progress (a held branch that is being read is never released). */
  get busy(): boolean {
    return this.#busy > 0;
  }
  /** Set once the model ended the branch itself (end of generation, or a full sequence). */
  get finishReason(): "stop" | "length" | undefined {
    return this.#finishReason;
  }
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * True from the start of a generation until a read of it begins: a fork just made for a caller who
   * has not read it yet. The pool releases such a branch last, or its cells would be copied for nothing.
   */
  get fresh(): boolean {
    return this.#fresh && this.#iterator !== undefined;
  }

  /** Settles when no read of this branch is in progress or queued. */
  whenIdle(): Promise<void> {
    return this.#reading.then(() => undefined);
  }

  /**
   * Reads up to `count` more tokens (fewer when the model ends the branch), calling `onEvent` for each as
   * it arrives. A released branch first starts a new generation from its prompt and tokens.
   */
  read(count: number, onEvent?: (event: TokenEvent, index: number) => void): Promise<TokenEvent[]> {
    const run = this.#reading.then(() => this.#read(count, onEvent));
    this.#reading = run.catch(() => undefined);
    return run;
  }

  /**
   * Starts the branch's generation now, without reading a token, so that what the engine refuses before
   * decoding (a prompt over the context, a grammar that does not parse) is thrown here. Reads continue it.
   */
  open(): Promise<void> {
    const run = this.#reading.then(async () => {
      if (this.#closed)
        throw new InvalidForkError(`Branch ${this.id} was closed; fork another branch instead.`);
      if (this.#iterator === undefined && this.#finishReason === undefined) await this.#start();
    });
    this.#reading = run.catch(() => undefined);
    return run;
  }

  async #read(count: number, onEvent?: (event: TokenEvent, index: number) => void): Promise<TokenEvent[]> {
    if (this.#closed)
      throw new InvalidForkError(`Branch ${this.id} was closed; fork another branch instead.`);
    const read: TokenEvent[] = [];
    if (this.#finishReason !== undefined || count <= 0) return read;
    this.#busy++;
    try {
      this.#host.touch(this);
      if (this.#iterator === undefined) await this.#start();
      this.#fresh = false;
      while (read.length < count) {
        // Released while reading (the pool closing): stop here; a later read starts over.
        const iterator = this.#iterator;
        if (iterator === undefined) break;
        const next = await iterator.next();
        if (next.done) {
          await this.#ended();
          break;
        }
        this.#events.push(next.value);
        read.push(next.value);
        onEvent?.(next.value, this.#events.length - 1);
      }
      this.#host.touch(this);
      return read;
    } finally {
      this.#busy--;
    }
  }

  async #start(): Promise<void> {
    await this.#host.acquire(this);
    const prompt = new Int32Array(this.promptTokens.length + this.#events.length);
    prompt.set(this.promptTokens);
    prompt.set(this.tokens, this.promptTokens.length);
    try {
      this.#begin(this.#host.context.generate(prompt, this.options));
    } catch (error) {
      // Refused before decoding (a prompt over the context): the branch holds no sequence, so it must not
      // stay in the pool's held list, where the next acquire would count it and try to release it.
      this.#host.dropped(this);
      throw error;
    }
  }

  /** @internal The pool starts a fork's first generation itself (LlamaContext.fork). */
  begin(stream: TokenStream): void {
    this.#begin(stream);
  }

  #begin(stream: TokenStream): void {
    this.#fresh = true;
    this.#stream = stream;
    this.#iterator = stream[Symbol.asyncIterator]();
    // A generation that fails is reported by the read that sees it; this keeps it from being unhandled.
    stream.result.catch(() => undefined);
  }

  async #ended(): Promise<void> {
    const result = await this.#stream!.result;
    this.generations.push(result);
    if (result.finishReason !== "abort") this.#finishReason = result.finishReason;
    this.#stream = undefined;
    this.#iterator = undefined;
    this.#host.dropped(this);
  }

  /**
   * Ends the paused generation and gives its sequence back (the next generation there overwrites its cells). The branch stays
   * readable: the next read prefills it again. Returns the result of the generation that ended.
   */
  async release(): Promise<TokenStreamResult | undefined> {
    const iterator = this.#iterator;
    const stream = this.#stream;
    this.#iterator = undefined;
    this.#stream = undefined;
    this.#fresh = false;
    if (iterator === undefined || stream === undefined) {
      this.#host.dropped(this);
      return undefined;
    }
    try {
      // Cancel first: it stops the native generation whether or not the iterator was ever pulled. Then
      // return() waits until the decode thread confirms, so the sequence is free when this resolves.
      stream.cancel();
      await iterator.return?.();
      const result = await stream.result.catch(() => undefined);
      if (result !== undefined) this.generations.push(result);
      return result;
    } finally {
      this.#host.dropped(this);
    }
  }

  /** Releases the branch for good; reads and forks of it are refused afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.release();
  }
}
