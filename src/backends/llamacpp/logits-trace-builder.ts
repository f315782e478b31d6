import type { LogitsAlternative, LogitsStep, LogitsTrace, SamplerStage } from "../../core/logits-trace.js";
import type { LogitsRequest } from "../../core/model-options.js";
import { nativeSamplerStages } from "./addon-types.js";
import type { TokenLogits } from "./token-stream.js";

/**
 * Turns the native stream's per-token captures into core LogitsSteps (source "llama.cpp"). `trace` is the
 * trace's header, with no steps: the thunk appends the steps of the logits parts it reads.
 */
export class LogitsTraceBuilder {
  readonly trace: LogitsTrace;
  readonly #pieceText: (token: number) => string;

  constructor(
    kind: "raw" | "processed",
    request: Exclude<LogitsRequest, false>,
    vocabSize: number,
    pieceText: (token: number) => string,
  ) {
    this.trace = {
      kind,
      source: "llama.cpp",
      topK: request === "full" ? null : request,
      vocabSize,
      steps: [],
    };
    this.#pieceText = pieceText;
  }

  /** The step of one token; null when nothing was captured for it. */
  step(
    token: number,
    text: string,
    captured: TokenLogits | undefined,
    bytes?: Uint8Array,
  ): LogitsStep | null {
    if (captured === undefined) return null;
    const full = captured.full;
    // The addon computes every log-sum-exp (vectorized); a non-finite one would only make NaN logprobs.
    const logSumExp = Number.isFinite(captured.logSumExp) ? captured.logSumExp : null;
    const chosenLogit = captured.chosenLogit;
    const top: LogitsAlternative[] = [];
    const ids = captured.topIds;
    const logits = captured.topLogits;
    if (ids !== undefined && logits !== undefined) {
      for (let index = 0; index < ids.length; index++) {
        const id = ids[index]!;
        // Padding when fewer tokens survived the sampler chain than k.
        if (id < 0) break;
        const logit = logits[index]!;
        top.push({
          token: id,
          text: this.#pieceText(id),
          logit,
          logprob: logSumExp === null ? Number.NaN : logit - logSumExp,
        });
      }
    }
    const step: LogitsStep = {
      token,
      text,
      logprob: logSumExp === null ? null : chosenLogit - logSumExp,
      logSumExp,
      top,
    };
    if (full !== undefined) step.full = full;
    if (captured.cutBy !== undefined) {
      const codes = captured.cutBy;
      step.removedBy = top.map((_, index): SamplerStage | null => nativeSamplerStages[codes[index]!] ?? null);
    }
    // A view, not a copy: the addon allocates each batch's piece buffer anew and never reuses it.
    if (bytes !== undefined) step.bytes = bytes;
    return step;
  }
}
