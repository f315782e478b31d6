// Branches on one context, more of them than it has sequences. Each held branch keeps one sequence
// busy with a paused generation; when a branch needs a sequence and all are held, the branch used
// least recently gives its back (its generation ends; the next generation there overwrites its cells). A fork is started
// while its source is still held, so the engine copies the source's cells into the fork's sequence
// instead of prefilling them (or instead of taking the source's sequence and cutting its tail).
import { InvalidForkError } from "../errors/invalid-fork-error.js";
import type { LlamaContext } from "../llama-context.js";
import { type BranchGenerateOptions, type BranchHost, LlamaBranch } from "./llama-branch.js";

export interface BranchForkOptions {
  /** The token placed at the fork point (an alternative); omitted: that position is sampled again. */
  readonly token?: number;
  /** The new branch's sampler and capture options; default: the source's. */
  readonly options?: BranchGenerateOptions;
}

export class LlamaBranchPool implements BranchHost {
  readonly context: LlamaContext;
  readonly #branches = new Map<number, LlamaBranch>();
  /** Held branches, least recently used first. */
  #held: LlamaBranch[] = [];
  #nextId = 1;
  #acquiring: Promise<unknown> = Promise.resolve();

  constructor(context: LlamaContext) {
    this.context = context;
  }

  get branches(): readonly LlamaBranch[] {
    return [...this.#branches.values()];
  }
  branch(id: number): LlamaBranch | undefined {
    return this.#branches.get(id);
  }
  /** Held branches, least recently used first. */
  get heldBranches(): readonly LlamaBranch[] {
    return [...this.#held];
  }

  /** A new root branch; nothing is decoded until it is read. */
  start(promptTokens: ArrayLike<number>, options: BranchGenerateOptions = {}): LlamaBranch {
    const branch = new LlamaBranch(this, this.#nextId++, Int32Array.from(Array.from(promptTokens)), options);
    this.#branches.set(branch.id, branch);
    return branch;
  }

  /**
   * A branch that continues `source` at `atTokenIndex` (see LlamaContext.fork), started now so that it
   * copies the source's cells while they are still there. The source is read up to the fork point first
   * when it has not got that far.
   */
  async fork(source: LlamaBranch, atTokenIndex: number, fork: BranchForkOptions = {}): Promise<LlamaBranch> {
    if (source.closed)
      throw new InvalidForkError(`Branch ${source.id} was closed; fork another branch instead.`);
    if (!Number.isInteger(atTokenIndex) || atTokenIndex < 0 || atTokenIndex > source.events.length) {
      throw new InvalidForkError(
        `Cannot fork branch ${source.id} at token ${atTokenIndex}: it has ${source.events.length} tokens, ` +
          `so the fork point must be an integer from 0 to ${source.events.length}.`,
      );
    }
    const options = fork.options ?? source.options;
    const tokens = source.tokens;
    const promptTokens = Int32Array.from([
      ...source.promptTokens,
      ...tokens.slice(0, atTokenIndex),
      ...(fork.token === undefined ? [] : [fork.token]),
    ]);
    const branch = new LlamaBranch(this, this.#nextId++, promptTokens, options, {
      branch: source,
      atTokenIndex,
    });
    // The source counts as used now: its cells are what the fork copies, so it is the last to give them back.
    this.touch(source);
    await this.acquire(branch, source);
    const { token } = fork;
    try {
      branch.begin(
        this.context.fork({ promptTokens: source.promptTokens, tokens }, atTokenIndex, {
          ...options,
          ...(token !== undefined && { token }),
        }),
      );
    } catch (error) {
      // Refused before decoding (e.g. a fork past a full sequence): no sequence is held, so no ghost.
      this.dropped(branch);
      throw error;
    }
    this.#branches.set(branch.id, branch);
    return branch;
  }

  /** @internal */
  acquire(branch: LlamaBranch, keep?: LlamaBranch): Promise<void> {
    const run = this.#acquiring.then(async () => {
      while (true) {
        const others = this.#held.filter((held) => held !== branch);
        if (others.length < this.context.sequences) break;
        // Least recently used first; a fork nobody has read yet next to last (released, it would be
        // prefilled again on its first read); the fork's source last (its cells are what the fork
        // copies; with one sequence the fork then takes that sequence and still keeps the whole shared
        // prefix). A branch being read is waited for, never cut: a paused held branch never gives its
        // sequence back by itself, so a generation queued behind it would wait forever.
        const idle = others.filter((held) => !held.busy);
        const victim =
          idle.find((held) => held !== keep && !held.fresh) ?? idle.find((held) => !held.fresh) ?? idle[0];
        if (victim === undefined) await Promise.race(others.map((held) => held.whenIdle()));
        else {
          // Dropped even when its release freed nothing (a branch that never got a generation): each
          // pass of this loop either shrinks the held list or waits on a read, so it never spins.
          await victim.release();
          this.dropped(victim);
        }
      }
      if (!this.#held.includes(branch)) this.#held.push(branch);
    });
    this.#acquiring = run.catch(() => undefined);
    return run;
  }

  /** @internal */
  touch(branch: LlamaBranch): void {
    const index = this.#held.indexOf(branch);
    if (index < 0) return;
    this.#held.splice(index, 1);
    this.#held.push(branch);
  }

  /** @internal */
  dropped(branch: LlamaBranch): void {
    this.#held = this.#held.filter((held) => held !== branch);
  }

  /** Releases every branch (their generations end; the context stays usable). */
  async close(): Promise<void> {
    for (const branch of this.#branches.values()) await branch.close();
    this.#branches.clear();
  }
}
