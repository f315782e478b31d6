import type { z } from "zod";
import type { AbstractTool } from "../../core/abstract-tool.js";
import { GenerationAbortedError } from "../../core/errors/generation-aborted-error.js";
import type { LogitsRequest } from "../../core/model-options.js";
import type { ModelOutputThunk, ThunkProducer } from "../../core/model-output-thunk.js";
import { StructuredOutputError } from "./errors/structured-output-error.js";
import { LogitsTraceBuilder } from "./logits-trace-builder.js";
import { StopSequenceMatcher } from "./stop-sequence-matcher.js";
import type { TokenStream, TokenStreamResult } from "./token-stream.js";
import { parseToolCalls } from "./tool-call-format.js";

/** What one generation needs once its prompt is tokenized and its stream started. */
export interface GenerationRun<T> {
  readonly thunk: ModelOutputThunk<T>;
  readonly stream: TokenStream;
  /** performance.now() when the backend received the request. */
  readonly requestStart: number;
  readonly tokenizeMs: number;
  readonly templateMs: number;
  /** performance.now() just before the native run started; its clock's durations count from there. */
  readonly nativeStart: number;
  readonly promptTokens: number;
  readonly vocabSize: number;
  readonly stopSequences: readonly string[];
  readonly logits: LogitsRequest | undefined;
  readonly rawLogits: LogitsRequest | undefined;
  /** Offered tools by name; calls in the answer are bound to them. */
  readonly tools: Readonly<Record<string, AbstractTool>>;
  readonly format: z.ZodType<T> | undefined;
  readonly signal: AbortSignal | undefined;
  readonly queueCapacity: number;
  readonly pieceText: (token: number) => string;
}

type Chunk = { text: string };

interface Progress {
  completionTokens: number;
  firstTokenAt: number | null;
  /** When the first text went into the reader's queue (the ttfbMs point). */
  firstTextAt: number | null;
  finishReason: "stop" | "length" | "abort" | "error" | null;
}

/**
 * Feeds the thunk from the native token stream: pieces go through the stop-sequence matcher into the
 * thunk's bounded queue (a slow reader pauses decoding), logits into traces, and the end fills usage,
 * finish reason, timings, tool calls and the parsed structured output.
 */
export function startGenerationRun<T>(run: GenerationRun<T>): void {
  const { thunk } = run;
  const processed = run.logits
    ? new LogitsTraceBuilder("processed", run.logits, run.vocabSize, run.pieceText)
    : null;
  const raw = run.rawLogits
    ? new LogitsTraceBuilder("raw", run.rawLogits, run.vocabSize, run.pieceText)
    : null;
  thunk.generation.logits = processed?.trace ?? null;
  thunk.generation.rawLogits = raw?.trace ?? null;
  const progress: Progress = {
    completionTokens: 0,
    firstTokenAt: null,
    firstTextAt: null,
    finishReason: null,
  };
  const producer = thunk.startProducer<Chunk>({
    capacity: run.queueCapacity,
    process: (chunk) => chunk,
    postProcess: (finished) => finish(run, finished, progress),
  });
  void produce(run, producer, progress, processed, raw);
}

async function produce<T>(
  run: GenerationRun<T>,
  producer: ThunkProducer<Chunk>,
  progress: Progress,
  processed: LogitsTraceBuilder | null,
  raw: LogitsTraceBuilder | null,
): Promise<void> {
  const { stream, thunk, signal } = run;
  const matcher = new StopSequenceMatcher(run.stopSequences);
  // Cancelling the thunk (cancelGeneration, aclose, leaving a for-await) stops native decoding at once,
  // even while this loop waits for the next batch. Usage and the finish reason are known right then:
  // fill them before the cancel returns, so code after a `break` reads them (the native stream settles
  // up to a decode step later and then adds its timings).
  const onCancel = () => {
    stream.cancel();
    progress.finishReason = "abort";
    fillMetadata(run, progress, null);
  };
  producer.signal.addEventListener("abort", onCancel, { once: true });
  let onAbort: (() => void) | undefined;
  const aborted =
    signal === undefined
      ? null
      : new Promise<"aborted">((resolve) => {
          onAbort = () => resolve("aborted");
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        });
  let seenText = 0;
  let result: TokenStreamResult | null = null;
  try {
    batches: for await (const batch of stream.batches()) {
      for (const event of batch.events) {
        progress.completionTokens++;
        progress.firstTokenAt ??= performance.now();
        seenText += event.text.length;
        processed?.add(event.token, event.text, event.logits, event.bytes);
        raw?.add(event.token, event.text, event.rawLogits, event.bytes);
        // One delta per token (not per native pull, which may hold many): readers stream token by token
        // and measure inter-token latency; a push into a queue with room costs a microtask.
        const text = matcher.push(event.text);
        if (text.length > 0) {
          progress.firstTextAt ??= performance.now();
          thunk.generation.ttfbMs ??= progress.firstTextAt - run.requestStart;
          const push = producer.push({ text });
          const accepted = aborted === null ? await push : await Promise.race([push, aborted]);
          if (accepted === "aborted") throw new GenerationAbortedError(thunk.value ?? "", signal?.reason);
          if (!accepted) break batches;
        }
        if (matcher.stopped) break batches;
      }
    }
    // Leaving the loop early aborted the native generation; its result then says "abort".
    result = await stream.result;
    if (producer.signal.aborted) progress.finishReason = "abort";
    else if (matcher.stopped) progress.finishReason = "stop";
    else {
      progress.finishReason = result.finishReason;
      // Bytes of an incomplete character at the very end, and text held back as a possible stop sequence.
      const tail = matcher.push(stream.text.slice(seenText)) + matcher.flush();
      if (tail.length > 0) await producer.push({ text: tail });
    }
    fillMetadata(run, progress, result);
    if (producer.signal.aborted) return;
    producer.end();
  } catch (error) {
    progress.finishReason = GenerationAbortedError.isInstance(error) ? "abort" : "error";
    fillMetadata(run, progress, result);
    producer.fail(error);
  } finally {
    producer.signal.removeEventListener("abort", onCancel);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

function fillMetadata<T>(run: GenerationRun<T>, progress: Progress, result: TokenStreamResult | null): void {
  const generation = run.thunk.generation;
  generation.usage = {
    promptTokens: run.promptTokens,
    completionTokens: progress.completionTokens,
    totalTokens: run.promptTokens + progress.completionTokens,
  };
  generation.finishReasons = progress.finishReason === null ? null : [progress.finishReason];
  generation.timeToFirstTokenMs =
    progress.firstTokenAt === null ? null : progress.firstTokenAt - run.requestStart;
  const native = result?.timings;
  const firstSampledAt =
    native?.timeToFirstTokenMs == null ? null : run.nativeStart + native.timeToFirstTokenMs;
  generation.timings = {
    setupMs: run.nativeStart - run.requestStart - run.templateMs - run.tokenizeMs,
    templateMs: run.templateMs,
    tokenizeMs: run.tokenizeMs,
    queueWaitMs:
      native?.timeToFirstTokenMs == null || native.prefillMs == null
        ? null
        : native.timeToFirstTokenMs - native.prefillMs,
    prefillMs: native?.prefillMs ?? null,
    firstDeliveryMs:
      firstSampledAt === null || progress.firstTextAt === null ? null : progress.firstTextAt - firstSampledAt,
    decodeMs: native?.decodeMs ?? null,
  };
  if (run.thunk.generateLog !== null) {
    run.thunk.generateLog.modelOutput = {
      finishReason: progress.finishReason,
      nativeFinishReason: result?.finishReason ?? null,
      generatedTokens: result?.generatedTokens ?? null,
      reusedPromptTokens: result?.reusedPromptTokens ?? null,
      seed: result?.seed ?? null,
      sequence: result?.sequence ?? null,
    };
  }
}

/** Runs once the whole text is in the thunk: tool calls and structured output. */
function finish<T>(run: GenerationRun<T>, thunk: ModelOutputThunk<T>, progress: Progress): void {
  const text = thunk.value ?? "";
  if (Object.keys(run.tools).length > 0) {
    const parsed = parseToolCalls(text, run.tools);
    if (parsed.calls.length > 0) thunk.toolCalls = parsed.calls;
    if (parsed.rejected.length > 0) thunk.meta.rejectedToolCalls = parsed.rejected;
  }
  if (run.format !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      thunk.error = new StructuredOutputError(
        text,
        progress.finishReason,
        "the text is not complete JSON",
        error,
      );
      return;
    }
    const checked = run.format.safeParse(json);
    if (checked.success) thunk.parsedRepr = checked.data;
    else {
      const problems = checked.error.issues
        .map((issue) => `${issue.path.map(String).join(".") || "(value)"}: ${issue.message}`)
        .join("; ");
      thunk.error = new StructuredOutputError(text, progress.finishReason, problems, checked.error);
    }
  }
}
