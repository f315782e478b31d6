// The live inspector's state: a tree of branches on one context. Each branch streams its tokens to
// whoever listens (the page's SSE connections) and keeps them for the tree and the export. Forks and
// re-samples go through LlamaBranchPool, so they copy the KV cells of the branch they start from.

import type { LlamaBranch } from "../../backends/llamacpp/branches/llama-branch.js";
import { LlamaBranchPool } from "../../backends/llamacpp/branches/llama-branch-pool.js";
import { GrammarError } from "../../backends/llamacpp/errors/grammar-error.js";
import { InvalidForkError } from "../../backends/llamacpp/errors/invalid-fork-error.js";
import { InvalidOptionError } from "../../backends/llamacpp/errors/invalid-option-error.js";
import type { LlamaContext } from "../../backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../backends/llamacpp/llama-model.js";
import { LogitsTraceBuilder } from "../../backends/llamacpp/logits-trace-builder.js";
import type { TokenEvent } from "../../backends/llamacpp/token-stream.js";
import { TesseraError } from "../../core/errors/tessera-error.js";
import { InspectorRequestError } from "../errors/inspector-request-error.js";
import { generateOptionsOf, liveAlternatives, type SamplerSettings } from "./inspector-settings.js";
import { type LiveToken, liveToken } from "./live-token.js";

export type BranchStatus = "running" | "done" | "error";

export interface BranchView {
  id: number;
  parentId: number | null;
  /** Index in the parent's own tokens where this branch starts. */
  atTokenIndex: number | null;
  /** "alternative": the token at atTokenIndex replaced; "resample": that position sampled again. */
  kind: "root" | "alternative" | "resample";
  /** The alternative token placed at the fork point, with its text. */
  forkToken: { token: number; text: string } | null;
  prompt: string;
  settings: SamplerSettings;
  status: BranchStatus;
  finishReason: string | null;
  error: string | null;
  tokens: LiveToken[];
  /**
   * Prompt tokens whose cells the branch's first generation copied or kept, and those it decoded (the
   * rest of its prompt). Known once that generation ended or was given back: the engine reports them then.
   * A fork usually decodes only its own token, but the engine copies from another sequence only when
   * that saves at least 8 tokens over what the free sequence already holds, so up to 7 can be decoded.
   */
  reusedPromptTokens: number | null;
  decodedPromptTokens: number | null;
  promptTokens: number;
  /** True while the branch keeps its sequence (and so its KV cells). */
  held: boolean;
  /** Milliseconds from the request to the branch's first token. */
  firstTokenMs: number | null;
}

export type BranchEvent =
  | { type: "token"; branchId: number; token: LiveToken }
  | { type: "end"; branch: BranchView };

interface BranchRecord {
  readonly branch: LlamaBranch;
  readonly view: Omit<
    BranchView,
    "held" | "reusedPromptTokens" | "decodedPromptTokens" | "tokens" | "promptTokens"
  >;
  readonly tokens: LiveToken[];
  readonly listeners: Set<(event: BranchEvent) => void>;
  readonly requestedAt: number;
  done: Promise<void>;
}

const defaultMaxTokens = 48;

/**
 * What the engine refused before decoding, in the request's field names (by error kind, not class):
 * an overflow is the prompt's fault for a new branch and the fork point's for a fork (the prefix up to
 * it plus the token fill the sequence); a sampler option is its settings field.
 */
function requestErrorOf(error: unknown, overflowField: "prompt" | "atTokenIndex"): unknown {
  if (!TesseraError.isInstance(error)) return error;
  if (error.kind === "context-overflow") {
    const problem =
      overflowField === "prompt"
        ? "the prompt does not fit one sequence of the context; shorten it or start tessera with a larger --context-size"
        : "the tokens up to this point already fill the sequence; fork at an earlier token";
    return new InspectorRequestError(overflowField, `${problem} (${error.message})`);
  }
  if (GrammarError.isInstance(error)) return new InspectorRequestError("settings.grammar", error.message);
  if (InvalidOptionError.isInstance(error)) {
    const name = /^[A-Za-z]+/.exec(error.optionName)?.[0] ?? error.optionName;
    return new InspectorRequestError(`settings.${name}`, error.message);
  }
  if (InvalidForkError.isInstance(error)) return new InspectorRequestError("atTokenIndex", error.message);
  return error;
}

export class InspectorSession {
  readonly model: LlamaModel;
  readonly modelId: string;
  readonly #context: LlamaContext;
  readonly #pool: LlamaBranchPool;
  readonly #records = new Map<number, BranchRecord>();
  readonly #decoder = new TextDecoder();
  readonly #raw: LogitsTraceBuilder;
  readonly #processed: LogitsTraceBuilder;

  constructor(model: LlamaModel, context: LlamaContext, modelId: string) {
    this.model = model;
    this.modelId = modelId;
    this.#context = context;
    this.#pool = new LlamaBranchPool(context);
    const pieceText = (token: number) => this.pieceText(token);
    this.#raw = new LogitsTraceBuilder("raw", liveAlternatives, model.vocabSize, pieceText);
    this.#processed = new LogitsTraceBuilder("processed", liveAlternatives, model.vocabSize, pieceText);
  }

  get sequences(): number {
    return this.#context.sequences;
  }

  pieceText(token: number): string {
    return this.#decoder.decode(this.model.tokenToPiece(token, { special: true }));
  }

  /**
   * A new root branch from a prompt (continued as raw text: no chat template, every token visible). Its
   * generation starts before this returns, so a prompt over the context or a grammar that does not parse
   * is refused here, naming the request field.
   */
  async start(prompt: string, settings: SamplerSettings): Promise<BranchView> {
    const tokens = this.model.tokenize(prompt);
    const branch = this.#pool.start(tokens, generateOptionsOf(settings));
    try {
      await branch.open();
    } catch (error) {
      await branch.close();
      throw requestErrorOf(error, "prompt");
    }
    return this.#track(
      branch,
      {
        parentId: null,
        atTokenIndex: null,
        kind: "root",
        forkToken: null,
        prompt,
        settings,
      },
      performance.now(),
    );
  }

  /**
   * A branch from `parentId` at its own token `atTokenIndex`: after `token` (an alternative), or
   * sampling that position again with `settings` (a re-sample) when no token is given.
   */
  async fork(
    parentId: number,
    atTokenIndex: number,
    token: number | undefined,
    settings: SamplerSettings | undefined,
  ): Promise<BranchView> {
    const requestedAt = performance.now();
    const parent = this.#record(parentId);
    if (atTokenIndex > parent.tokens.length) {
      throw new InspectorRequestError(
        "atTokenIndex",
        `branch ${parentId} has ${parent.tokens.length} tokens so far; fork at 0 to ${parent.tokens.length}`,
      );
    }
    if (token !== undefined && (token < 0 || token >= this.model.vocabSize)) {
      throw new InspectorRequestError("token", `token ids go from 0 to ${this.model.vocabSize - 1}`);
    }
    const chosen = settings ?? parent.view.settings;
    let branch: LlamaBranch;
    try {
      branch = await this.#pool.fork(parent.branch, atTokenIndex, {
        ...(token !== undefined && { token }),
        options: generateOptionsOf(chosen),
      });
    } catch (error) {
      throw requestErrorOf(error, "atTokenIndex");
    }
    return this.#track(
      branch,
      {
        parentId,
        atTokenIndex,
        kind: token === undefined ? "resample" : "alternative",
        forkToken: token === undefined ? null : { token, text: this.pieceText(token) },
        prompt: parent.view.prompt,
        settings: chosen,
      },
      requestedAt,
    );
  }

  /** Every branch, oldest first. */
  tree(): BranchView[] {
    return [...this.#records.values()].map((record) => this.#view(record));
  }

  branch(id: number): BranchView {
    return this.#view(this.#record(id));
  }

  /** Calls `listener` with every token of the branch so far, then with each new one, then its end. */
  subscribe(id: number, listener: (event: BranchEvent) => void): () => void {
    const record = this.#record(id);
    for (const token of record.tokens) listener({ type: "token", branchId: id, token });
    if (record.view.status !== "running") {
      listener({ type: "end", branch: this.#view(record) });
      return () => undefined;
    }
    record.listeners.add(listener);
    return () => record.listeners.delete(listener);
  }

  /** Waits until the branch stopped streaming (tests and the benchmark). */
  async settled(id: number): Promise<BranchView> {
    await this.#record(id).done;
    return this.branch(id);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  #record(id: number): BranchRecord {
    const record = this.#records.get(id);
    if (record === undefined) {
      throw new InspectorRequestError("branchId", `there is no branch ${id}; GET /api/tree lists them`, 404);
    }
    return record;
  }

  #view(record: BranchRecord): BranchView {
    const first = record.branch.generations[0];
    return {
      ...record.view,
      tokens: record.tokens,
      held: record.branch.held,
      reusedPromptTokens: first?.reusedPromptTokens ?? null,
      decodedPromptTokens: first === undefined ? null : first.promptTokens - first.reusedPromptTokens,
      promptTokens: record.branch.promptTokens.length,
    };
  }

  #track(
    branch: LlamaBranch,
    view: Omit<
      BranchView,
      | "id"
      | "status"
      | "finishReason"
      | "error"
      | "held"
      | "reusedPromptTokens"
      | "decodedPromptTokens"
      | "tokens"
      | "promptTokens"
      | "firstTokenMs"
    >,
    requestedAt: number,
  ): BranchView {
    const record: BranchRecord = {
      branch,
      view: {
        ...view,
        id: branch.id,
        status: "running",
        finishReason: null,
        error: null,
        firstTokenMs: null,
      },
      tokens: [],
      listeners: new Set(),
      requestedAt,
      done: Promise.resolve(),
    };
    this.#records.set(branch.id, record);
    record.done = this.#run(record);
    return this.#view(record);
  }

  async #run(record: BranchRecord): Promise<void> {
    const mutable = record.view as {
      -readonly [Key in keyof BranchRecord["view"]]: BranchRecord["view"][Key];
    };
    const onEvent = (event: TokenEvent, index: number) => {
      if (mutable.firstTokenMs === null) mutable.firstTokenMs = performance.now() - record.requestedAt;
      const token = this.#liveToken(event, index);
      record.tokens.push(token);
      for (const listener of record.listeners) listener({ type: "token", branchId: record.branch.id, token });
    };
    try {
      await record.branch.read(record.view.settings.maxTokens ?? defaultMaxTokens, onEvent);
      mutable.status = "done";
      mutable.finishReason = record.branch.finishReason ?? "length";
    } catch (error) {
      mutable.status = "error";
      mutable.error = error instanceof Error ? error.message : String(error);
    }
    const end: BranchEvent = { type: "end", branch: this.#view(record) };
    for (const listener of record.listeners) listener(end);
    record.listeners.clear();
  }

  #liveToken(event: TokenEvent, index: number): LiveToken {
    const processed = this.#processed.step(event.token, event.text, event.logits, event.bytes);
    const raw = this.#raw.step(event.token, event.text, event.rawLogits, event.bytes);
    // The native "cut by" labels arrive on the raw step, one per raw top-k candidate (null: survived).
    const labels = (raw as { removedBy?: unknown } | null)?.removedBy;
    const removedBy = Array.isArray(labels)
      ? raw!.top.map((candidate, position) => ({ token: candidate.token, sampler: labels[position] }))
      : undefined;
    return liveToken(index, processed, raw, liveAlternatives, this.model.vocabSize, removedBy);
  }
}
