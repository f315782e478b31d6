// The honest limit as a row of `bench ttfb`: the C++ greedy runner on the same prebuilt libraries, with
// the chat template rendered (llama.cpp's built-in matcher) as the in-process rows do. Its pieces are
// handed to the observer with the runner's own times, so the row shows what the libraries can do with
// no queue, no thread hand-off and no JavaScript, and the pipe to this process is never counted.
import type { BenchTarget, StreamObserver, StreamOutcome, StreamRequest } from "../bench-target.js";
import { inProcessStages } from "../first-token-stages.js";
import type { FlashAttention } from "../flash-attention-setting.js";
import { GreedyRunnerProcess, greedyRunnerName } from "../greedy-runner-process.js";

export interface GreedyRunnerTargetOptions {
  modelPath: string;
  threads: number;
  contextSize: number;
  /** --flash-attn of the runner; default: llama.cpp's own ("auto"). */
  flashAttention?: FlashAttention;
}

export class GreedyRunnerTarget implements BenchTarget {
  readonly name = greedyRunnerName;
  readonly transport = "in-process" as const;
  readonly #options: GreedyRunnerTargetOptions;
  #runner: GreedyRunnerProcess | undefined;

  constructor(options: GreedyRunnerTargetOptions) {
    this.#options = options;
  }

  async prepare(): Promise<void> {
    this.#runner = await GreedyRunnerProcess.start({ ...this.#options, chat: true });
  }

  async stream(request: StreamRequest, observer: StreamObserver): Promise<StreamOutcome> {
    const started = performance.now();
    const generation = await this.#runner!.generate(request.prompt, request.maxTokens);
    request.signal.throwIfAborted();
    // No firstByte() call: that would stamp this process's now; the first piece carries the runner's time.
    generation.pieces.forEach((piece, index) => {
      observer.content(piece, started + generation.times[index]!);
    });
    return {
      completionTokens: generation.generatedTokens,
      firstToken: {
        stages: inProcessStages({
          setup: 0,
          template: generation.templateMs,
          tokenize: generation.tokenizeMs - generation.templateMs,
          queueWait: 0,
          prefill: generation.firstTokenMs - generation.tokenizeMs,
          firstDelivery: 0,
        }),
      },
    };
  }

  async close(): Promise<void> {
    this.#runner?.close();
    this.#runner = undefined;
  }
}
