// The node-llama-cpp row: the same GGUF through node-llama-cpp's own prebuilt binaries, in this process.
// A sequence's history is cleared before each run, so every prompt is processed in full.
import type { ChatWrapper, Llama, LlamaContext, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import type { BenchTarget, StreamObserver, StreamOutcome, StreamRequest } from "../bench-target.js";
import { BenchTargetUnavailableError } from "../errors/bench-target-unavailable-error.js";

export interface NodeLlamaCppTargetOptions {
  modelPath: string;
  threads: number;
  contextSize: number;
  name?: string;
  /** Batch size for prompt processing (llama.cpp's n_batch); node-llama-cpp's default otherwise. */
  batchSize?: number;
  /**
   * Wrap each prompt in the model's chat template (node-llama-cpp's own rendering of the GGUF template,
   * timed with the run), so the row does the same work as tessera's in-process row; default: bare text.
   */
  renderChatTemplate?: boolean;
  /** createContext's flashAttention; default: node-llama-cpp's own ("auto"). */
  flashAttention?: "auto" | boolean;
}

export class NodeLlamaCppTarget implements BenchTarget {
  readonly transport = "in-process" as const;
  readonly jitCompiled = true;
  readonly name: string;
  readonly #options: NodeLlamaCppTargetOptions;
  #llama: Llama | undefined;
  #model: LlamaModel | undefined;
  #context: LlamaContext | undefined;
  #sequence: LlamaContextSequence | undefined;
  #chatWrapper: ChatWrapper | undefined;

  constructor(options: NodeLlamaCppTargetOptions) {
    this.name = options.name ?? "node-llama-cpp (in-process)";
    this.#options = options;
  }

  async prepare(): Promise<void> {
    try {
      const { getLlama, LlamaLogLevel, resolveChatWrapper } = await import("node-llama-cpp");
      this.#llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
      this.#model = await this.#llama.loadModel({ modelPath: this.#options.modelPath, gpuLayers: 0 });
      this.#context = await this.#model.createContext({
        contextSize: this.#options.contextSize,
        threads: this.#options.threads,
        ...(this.#options.batchSize !== undefined && { batchSize: this.#options.batchSize }),
        ...(this.#options.flashAttention !== undefined && { flashAttention: this.#options.flashAttention }),
      });
      this.#sequence = this.#context.getSequence();
      if (this.#options.renderChatTemplate === true) this.#chatWrapper = resolveChatWrapper(this.#model);
    } catch (error) {
      await this.close();
      throw new BenchTargetUnavailableError(
        this.name,
        `node-llama-cpp could not load the model: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /** The flash attention setting node-llama-cpp created the context with; undefined before prepare(). */
  get flashAttention(): "auto" | boolean | undefined {
    return this.#context?.flashAttention;
  }

  /** The model's own tokenizer (no BOS), for sizing prompts. */
  async countTokens(text: string): Promise<number> {
    if (this.#model === undefined) throw new Error("prepare() the node-llama-cpp target first");
    return this.#model.tokenize(text).length;
  }

  tokenize(text: string): number[] {
    if (this.#model === undefined) throw new Error("prepare() the node-llama-cpp target first");
    return this.#model.tokenize(text, true) as number[];
  }

  async stream(request: StreamRequest, observer: StreamObserver): Promise<StreamOutcome> {
    const model = this.#model!;
    const sequence = this.#sequence!;
    await sequence.clearHistory();
    const tokens =
      this.#chatWrapper === undefined
        ? model.tokenize(request.prompt, true)
        : this.#chatWrapper
            .generateContextState({
              chatHistory: [
                { type: "user", text: request.prompt },
                { type: "model", response: [] },
              ],
            })
            .contextText.tokenize(model.tokenizer);
    let generated = 0;
    // Pieces are detokenized with the tokens before them so multi-byte characters come out whole.
    const pending: typeof tokens = [];
    for await (const token of sequence.evaluate(tokens, { temperature: 0 })) {
      request.signal.throwIfAborted();
      generated++;
      if (generated === 1) observer.firstByte();
      pending.push(token);
      const text = model.detokenize(pending);
      if (!text.endsWith("\uFFFD")) {
        observer.content(text);
        pending.length = 0;
      }
      if (generated >= request.maxTokens || model.isEogToken(token)) break;
    }
    return { completionTokens: generated };
  }

  async close(): Promise<void> {
    await this.#context?.dispose();
    await this.#model?.dispose();
    await this.#llama?.dispose();
    this.#context = undefined;
    this.#model = undefined;
    this.#llama = undefined;
  }
}
