// What every row of the latency benchmark implements: a way to stream one completion while telling the
// runner when the first byte and each content token arrived. Preparation (loading a model, starting a
// server) happens in prepare(), outside the timed part.
import type { FirstTokenStageTimes } from "./first-token-stages.js";

export interface StreamObserver {
  /** The first byte of the answer arrived (HTTP body bytes; the first generated token in-process). */
  firstByte(): void;
  /**
   * A piece of generated text arrived; empty pieces are not content and do not count. `arrivedAt`
   * (performance.now()) is when the read that held it arrived: pieces parsed from one read share it, so
   * they count as one arrival, not as tokens microseconds apart. Without it the runner stamps the piece
   * with the event-loop turn it came in (see arrival-clock.ts).
   */
  content(text: string, arrivedAt?: number): void;
}

export interface StreamRequest {
  prompt: string;
  maxTokens: number;
  signal: AbortSignal;
}

export interface StreamOutcome {
  /** Generated tokens as the target reports them; null when only the content events can be counted. */
  completionTokens: number | null;
  /**
   * The target's own stages of the first token, each an interval between two marks (ms). The runner
   * times the first token itself and reports what they leave uncovered; it adds nothing to any stage.
   */
  firstToken?: { stages: FirstTokenStageTimes };
}

export interface BenchTarget {
  readonly name: string;
  /** "in-process" or "http", shown in tables. */
  readonly transport: "in-process" | "http";
  /**
   * Whether the row's own serving path runs in V8 on this machine (tessera in-process, node-llama-cpp, a
   * Node server started here): only such rows get `bench ttfb`'s JIT warm-up. A C++ row has nothing to
   * compile, and a remote provider would be sent thousands of requests (and billed for them).
   */
  readonly jitCompiled?: boolean;
  /** What the row's server did with kept-alive connections, when it did not keep them (after the runs). */
  connectionNote?(): string | null;
  /** Load the model or start the server; throws BenchTargetUnavailableError to skip the row. */
  prepare(signal: AbortSignal): Promise<void>;
  /** Tokens in `text` for this target's model; used to size the prompts. */
  countTokens?(text: string): Promise<number>;
  /**
   * Untimed work that one run needs before its timed part (the first turn of a chat whose second turn is
   * measured); the runner calls it with the same request right before stream().
   */
  prepareRun?(request: StreamRequest): Promise<void>;
  stream(request: StreamRequest, observer: StreamObserver): Promise<StreamOutcome>;
  close(): Promise<void>;
}
