// Token-signal requirements on hand-built traces (control flow): each reads its trace as the sample streams,
// cancels at the first failing token, and its final check agrees with the streaming one.
import { describe, expect, it } from "vitest";
import {
  type LogitsStep,
  type LogitsTrace,
  ModelOutputThunk,
  type StreamPart,
} from "../../src/core/index.js";
import {
  maxEntropyRequirement,
  meanLogprobWindowRequirement,
  minTokenLogprobRequirement,
  probabilityGapRequirement,
  SimpleContext,
  stepEntropy,
  tokenSignalRequirement,
  validateWhileStreaming,
} from "../../src/stdlib/index.js";
import { scripted } from "./helpers.js";

interface Token {
  text: string;
  logprob: number;
  raw?: number;
  top?: number[];
}

function step(token: number, text: string, logprob: number, top: number[] = []): LogitsStep {
  return {
    token,
    text,
    logprob,
    logSumExp: 0,
    top: top.map((alternative, index) => ({
      token: index === 0 ? token : 1000 + index,
      text: "",
      logit: alternative,
      logprob: alternative,
    })),
  };
}

function trace(kind: "raw" | "processed"): LogitsTrace {
  return { kind, source: "test", topK: 1, vocabSize: null, steps: [] };
}

/** A thunk whose source sends each token's steps in a logits part before its text, like the backends. */
function tracedThunk(tokens: Token[], withRaw = false): { thunk: ModelOutputThunk; pushed: () => number } {
  const thunk = new ModelOutputThunk();
  thunk.generation.logits = trace("processed");
  if (withRaw) thunk.generation.rawLogits = trace("raw");
  let pushed = 0;
  async function* parts(): AsyncGenerator<StreamPart, void, undefined> {
    for (const [index, token] of tokens.entries()) {
      const processed = [step(index, token.text, token.logprob, token.top)];
      yield withRaw
        ? { type: "logits", processed, raw: [step(index, token.text, token.raw ?? token.logprob)] }
        : { type: "logits", processed };
      yield { type: "text-delta", text: token.text };
      pushed += 1;
    }
  }
  thunk.consume(() => parts(), { capacity: 1 });
  return { thunk, pushed: () => pushed };
}

const confident = (text: string): Token => ({ text, logprob: -0.1 });
const doubtful = (text: string): Token => ({ text, logprob: -4 });

async function finalCheck(
  requirement: ReturnType<typeof minTokenLogprobRequirement>,
  thunk: ModelOutputThunk,
) {
  return requirement.validate(scripted([]), new SimpleContext().add(thunk));
}

describe("token-signal requirements", () => {
  it("min token logprob cancels at the first unlikely token and its final check agrees", async () => {
    const tokens = [
      confident("a"),
      confident("b"),
      doubtful("c"),
      ...Array.from({ length: 30 }, () => confident("d")),
    ];
    const { thunk, pushed } = tracedThunk(tokens);
    const requirement = minTokenLogprobRequirement(-2);
    const failure = await validateWhileStreaming(thunk, [requirement], new SimpleContext());
    expect(failure?.result.reason).toBe("token 2: logprob -4.000 < -2");
    expect(thunk.cancelled).toBe(true);
    // The producer records a token's step before its text waits in the queue, so the cancel can land
    // before the unlikely token's text is read: never more than a queue's worth later.
    expect(["a", "ab", "abc"]).toContain(thunk.value);
    expect(pushed()).toBeLessThan(8);
    expect((await finalCheck(requirement, thunk)).result).toBe(false);
  });

  it("a confident sample streams to the end and passes", async () => {
    const { thunk } = tracedThunk([confident("a"), confident("b")]);
    const requirement = minTokenLogprobRequirement(-2);
    expect(await validateWhileStreaming(thunk, [requirement], new SimpleContext())).toBeNull();
    expect(thunk.value).toBe("ab");
    expect((await finalCheck(requirement, thunk)).result).toBe(true);
  });

  it("a mean over a sliding window tolerates one unlikely token but not a run of them", async () => {
    const requirement = meanLogprobWindowRequirement(3, -1.5);
    const one = tracedThunk([confident("a"), doubtful("b"), confident("c"), confident("d")]);
    expect(await validateWhileStreaming(one.thunk, [requirement], new SimpleContext())).toBeNull();
    const run = tracedThunk([confident("a"), doubtful("b"), doubtful("c"), confident("d"), confident("e")]);
    const failure = await validateWhileStreaming(run.thunk, [requirement], new SimpleContext());
    expect(failure?.result.reason).toMatch(/^token 2: mean logprob -2\.700 over 3 tokens < -1\.5$/);
  });

  it("entropy from top-k treats the tail as one outcome (a lower bound of the exact entropy)", () => {
    const logits = new Float32Array([
      Math.log(0.5),
      Math.log(0.2),
      Math.log(0.1),
      Math.log(0.1),
      Math.log(0.1),
    ]);
    const exact = stepEntropy({ token: 0, text: "", logprob: null, logSumExp: 0, top: [], full: logits });
    const top2 = stepEntropy(step(0, "", Math.log(0.5), [Math.log(0.5), Math.log(0.2)]));
    expect(exact).toBeCloseTo(-(0.5 * Math.log(0.5) + 0.2 * Math.log(0.2) + 0.3 * Math.log(0.1)), 5);
    expect(top2).toBeCloseTo(-(0.5 * Math.log(0.5) + 0.2 * Math.log(0.2) + 0.3 * Math.log(0.3)), 5);
    expect(top2!).toBeLessThan(exact!);
  });

  it("max entropy fails a flat distribution and asks the backend for 20 alternatives", async () => {
    const requirement = maxEntropyRequirement(1);
    expect(requirement.streamModelOptions).toEqual({ logits: 20 });
    const flat = Array.from({ length: 8 }, () => Math.log(1 / 8));
    const { thunk } = tracedThunk([
      { text: "a", logprob: -0.01, top: [-0.01] },
      { text: "b", logprob: Math.log(1 / 8), top: flat },
      confident("c"),
    ]);
    const failure = await validateWhileStreaming(thunk, [requirement], new SimpleContext());
    expect(failure?.result.reason).toMatch(/^token 1: entropy 2\.079 nats > 1$/);
  });

  it("the probability gap compares the processed and raw traces of the same token", async () => {
    const requirement = probabilityGapRequirement(0.5);
    expect(requirement.streamModelOptions).toEqual({ logits: 1, rawLogits: 1 });
    const { thunk } = tracedThunk(
      [{ text: "a", logprob: -0.1, raw: -0.2 }, { text: "b", logprob: -0.01, raw: -3 }, confident("c")],
      true,
    );
    const failure = await validateWhileStreaming(thunk, [requirement], new SimpleContext());
    expect(failure?.result.reason).toMatch(/^token 1: probability gap 0\.940 > 0\.5$/);
  });

  it("a sample without the needed trace is unknown while streaming and fails at the end, naming the option", async () => {
    const requirement = tokenSignalRequirement("raw only", { traces: ["raw"], check: () => "always" });
    const { thunk } = tracedThunk([confident("a")]);
    expect(await validateWhileStreaming(thunk, [requirement], new SimpleContext())).toBeNull();
    const final = await finalCheck(requirement, thunk);
    expect(final.result).toBe(false);
    expect(final.reason).toMatch(/modelOptions\.rawLogits/);
  });

  it("the helper hands the check every earlier token", async () => {
    const seen: number[] = [];
    const requirement = tokenSignalRequirement("sees history", {
      traces: ["processed"],
      check: (event, previous) => {
        seen.push(previous.length);
        return event.index === previous.length ? null : "misaligned";
      },
    });
    const { thunk } = tracedThunk([confident("a"), confident("b"), confident("c")]);
    expect(await validateWhileStreaming(thunk, [requirement], new SimpleContext())).toBeNull();
    expect(seen).toEqual([0, 1, 2]);
  });
});
