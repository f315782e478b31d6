import type { z } from "zod";
import type { AbstractTool } from "../../core/abstract-tool.js";
import type { LogitsStep } from "../../core/logits-trace.js";
import type { LogitsRequest } from "../../core/model-options.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { StreamPart } from "../../core/stream-part.js";
import { StructuredOutputError } from "./errors/structured-output-error.js";
import { LogitsTraceBuilder } from "./logits-trace-builder.js";
import { StopSequenceMatcher } from "./stop-sequence-matcher.js";
import type { TokenStream, TokenStreamResult } from "./token-stream.js";
import { ToolCallMarkupFilter } from "./tool-call-markup-filter.js";

/** What one request's run needs once its prompt is tokenized and its native token stream started. */
export interface LlamaStreamRun<T> {
  readonly thunk: ModelOutputThunk<T>;
  readonly stream: TokenStream;
  /** performance.now() when the backend received the request. */
  readonly requestStart: number;
  readonly tokenizeMs: number;
  readonly templateMs: number;
  /** performance.now() as the template render started and as tokenizing ended. */
  readonly templateStartedAt: number;
  readonly tokenizeEndedAt: number;
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
  /** The caller's signal: the thunk listens to it (once) and cancels this run's source. */
  readonly signal: AbortSignal | undefined;
  /** Parts queued in the thunk ahead of its reader before decoding pauses. */
  readonly queueCapacity: number;
  readonly pieceText: (token: number) => string;
}

interface Progress {
  completionTokens: number;
  firstTokenAt: number | null;
  finishReason: "stop" | "length" | "abort" | "error" | null;
}

/**
 * Feeds the thunk the parts of one native token stream: text through the stop-sequence matcher and the
 * tool-call markup filter (neither stop text nor markup ever leaves this backend), one logits part per
 * native batch, and at the end the tool calls, usage and finish reason. The thunk's bounded queue pulls
 * the parts, so a slow reader pauses decoding.
 */
export function startLlamaStreamRun<T>(run: LlamaStreamRun<T>): void {
  const { thunk } = run;
  const processed = run.logits
    ? new LogitsTraceBuilder("processed", run.logits, run.vocabSize, run.pieceText)
    : null;
  const raw = run.rawLogits
    ? new LogitsTraceBuilder("raw", run.rawLogits, run.vocabSize, run.pieceText)
    : null;
  thunk.generation.logits = processed?.trace ?? null;
  thunk.generation.rawLogits = raw?.trace ?? null;
  thunk.consume((signal) => streamParts(run, signal, processed, raw), {
    capacity: run.queueCapacity,
    startedAt: run.requestStart,
    ...(run.signal !== undefined && { signal: run.signal }),
  });
}

async function* streamParts<T>(
  run: LlamaStreamRun<T>,
  signal: AbortSignal,
  processed: LogitsTraceBuilder | null,
  raw: LogitsTraceBuilder | null,
): AsyncGenerator<StreamPart, void, undefined> {
  const { stream } = run;
  const progress: Progress = { completionTokens: 0, firstTokenAt: null, finishReason: null };
  const matcher = new StopSequenceMatcher(run.stopSequences);
  const markup = new ToolCallMarkupFilter(Object.keys(run.tools).length > 0);
  // Cancelling the thunk (cancelGeneration, aclose, leaving a for-await, the caller's signal) stops
  // native decoding at once, even while this waits for the next batch. Usage and the finish reason are
  // known right then: fill them before the cancel returns, so code after a `break` reads them (the native
  // stream settles up to a decode step later and then adds its timings).
  const onCancel = () => {
    stream.cancel();
    progress.finishReason = "abort";
    fillMetadata(run, progress, null, true);
    // Once the native stream has settled (the reader left it, or its pull saw the cancel), its timings
    // and counters complete the metadata.
    stream.result.then(
      (result) => fillMetadata(run, progress, result, true),
      () => undefined,
    );
  };
  if (signal.aborted) onCancel();
  else signal.addEventListener("abort", onCancel, { once: true });
  let seenText = 0;
  // The answer as sent, for the structured-output parse; only kept when a format asks for it.
  let answer = "";
  let result: TokenStreamResult | null = null;
  try {
    for await (const batch of stream.batches()) {
      if (signal.aborted) return;
      // The batch is in memory already: run its text through the matchers first, so the logits part
      // holds exactly the tokens up to a stop sequence and arrives before their text.
      const texts: string[] = [];
      // Step arrays only when their trace was asked for: most runs capture no logits.
      const processedSteps: LogitsStep[] | null = processed === null ? null : [];
      const rawSteps: LogitsStep[] | null = raw === null ? null : [];
      for (const event of batch.events) {
        progress.completionTokens++;
        progress.firstTokenAt ??= performance.now();
        seenText += event.text.length;
        const processedStep = processed?.step(event.token, event.text, event.logits, event.bytes);
        if (processedStep) processedSteps?.push(processedStep);
        const rawStep = raw?.step(event.token, event.text, event.rawLogits, event.bytes);
        if (rawStep) rawSteps?.push(rawStep);
        // One delta per token (not per native pull, which may hold many): readers stream token by token.
        // Markup first: stop sequences end answer text, never a tool call (a stop of "</tool_call>" would
        // otherwise match the call's own closing tag and drop the call).
        const text = matcher.push(markup.push(event.text));
        if (text.length > 0) texts.push(text);
        if (matcher.stopped) break;
      }
      if (processedSteps !== null || rawSteps !== null) {
        yield {
          type: "logits",
          ...(processedSteps !== null && { processed: processedSteps }),
          ...(rawSteps !== null && { raw: rawSteps }),
        };
      }
      for (const text of texts) {
        if (run.format !== undefined) answer += text;
        yield { type: "text-delta", text };
      }
      if (matcher.stopped) break;
    }
    // Leaving the loop early aborted the native decode job; its result then says "abort".
    result = await stream.result;
    if (signal.aborted) return;
    // Bytes of an incomplete character at the very end; then the text after the calls, which the markup
    // filter held to the end (stop sequences apply to it as to any answer text); then text held back as a
    // possible stop sequence.
    const rest = markup.push(stream.text.slice(seenText));
    const parsed = markup.finish(run.tools);
    const tail = matcher.stopped ? "" : matcher.push(rest + parsed.text) + matcher.flush();
    progress.finishReason = matcher.stopped ? "stop" : result.finishReason;
    if (tail.length > 0) {
      if (run.format !== undefined) answer += tail;
      yield { type: "text-delta", text: tail };
    }
    for (const toolCall of parsed.calls) yield { type: "tool-call", toolCall };
    if (parsed.rejected.length > 0) run.thunk.meta.rejectedToolCalls = parsed.rejected;
    if (run.format !== undefined) parseStructuredOutput(run.thunk, run.format, answer, progress.finishReason);
    fillMetadata(run, progress, result, false);
    yield { type: "usage", usage: usageOf(run, progress) };
    yield { type: "finish", reason: progress.finishReason };
  } catch (error) {
    if (signal.aborted) return;
    progress.finishReason = "error";
    fillMetadata(run, progress, result, false);
    // Queued before the failure, so a reader of the failed thunk still finds them.
    yield { type: "usage", usage: usageOf(run, progress) };
    yield { type: "finish", reason: "error" };
    throw error;
  } finally {
    signal.removeEventListener("abort", onCancel);
  }
}

function usageOf<T>(run: LlamaStreamRun<T>, progress: Progress) {
  return {
    promptTokens: run.promptTokens,
    completionTokens: progress.completionTokens,
    totalTokens: run.promptTokens + progress.completionTokens,
  };
}

/**
 * What no part carries: timings, time to first token, the generate log. `cancelled`: also usage and the
 * finish reason, which parts can no longer deliver once the reader left.
 */
function fillMetadata<T>(
  run: LlamaStreamRun<T>,
  progress: Progress,
  result: TokenStreamResult | null,
  cancelled: boolean,
): void {
  const generation = run.thunk.generation;
  if (cancelled) {
    generation.usage = usageOf(run, progress);
    generation.finishReasons = progress.finishReason === null ? null : [progress.finishReason];
  }
  generation.timeToFirstTokenMs =
    progress.firstTokenAt === null ? null : progress.firstTokenAt - run.requestStart;
  const native = result?.timings;
  const firstSampledAt =
    native?.timeToFirstTokenMs == null ? null : run.nativeStart + native.timeToFirstTokenMs;
  // Every stage is an interval between two marks taken where its work starts and ends, never what is left
  // of another figure, so a benchmark that times the first token on its own clock can check that they
  // cover it. Setup: request → template start (context view, model load, grammar) plus tokenize end →
  // native start (option checks). Queue wait and prefill come from the native clock's three marks (job
  // created, prefill started, first token sampled): ttft − prefill is exactly created → prefill start.
  generation.timings = {
    setupMs: run.templateStartedAt - run.requestStart + (run.nativeStart - run.tokenizeEndedAt),
    templateMs: run.templateMs,
    tokenizeMs: run.tokenizeMs,
    queueWaitMs:
      native?.timeToFirstTokenMs == null || native.prefillMs == null
        ? null
        : native.timeToFirstTokenMs - native.prefillMs,
    prefillMs: native?.prefillMs ?? null,
    // First token sampled (native mark, on this clock from the native start) → the thunk received the
    // first part (its ttfbMs counts from requestStart). The hop on to the thunk's reader is not in here.
    firstDeliveryMs:
      firstSampledAt === null || generation.ttfbMs === null
        ? null
        : run.requestStart + generation.ttfbMs - firstSampledAt,
    decodeMs: native?.decodeMs ?? null,
    requestStartedAt: run.requestStart,
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

/** Parses the structured output into parsedRepr, or records why it is unusable on `error` (soft). */
function parseStructuredOutput<T>(
  thunk: ModelOutputThunk<T>,
  format: z.ZodType<T>,
  text: string,
  finishReason: Progress["finishReason"],
): void {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    thunk.error = new StructuredOutputError(text, finishReason, "the text is not complete JSON", error);
    return;
  }
  const checked = format.safeParse(json);
  if (checked.success) thunk.parsedRepr = checked.data;
  else {
    const problems = checked.error.issues
      .map((issue) => `${issue.path.map(String).join(".") || "(value)"}: ${issue.message}`)
      .join("; ");
    thunk.error = new StructuredOutputError(text, finishReason, problems, checked.error);
  }
}
