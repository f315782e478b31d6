// Pooled strategies on the real llama.cpp backend (tiny model, random weights, one thread) and over
// OpenAIBackend against tessera serve on 127.0.0.1. Only properties that hold whatever the weights: a
// cancelled sample stops decoding (native finish "abort", at most its queue plus one step after what was
// read), no more than concurrencyBudget sequences are live (the context's own count of running
// generations, sampled every millisecond), the budget is respected, and later samples reuse the prompt's cells.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import {
  CBlock,
  HookRegistry,
  type ModelOutputThunk,
  PartialValidationResult,
} from "../../src/core/index.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";
import {
  BestOfNStrategy,
  MajorityVotingStrategy,
  minTokenLogprobRequirement,
  RejectionSamplingStrategy,
  SimpleContext,
  StandardRequirement,
  sumTokenLogprob,
} from "../../src/stdlib/index.js";

let backend: LlamaCppBackend;
let peakRunning = 0;
let monitor: NodeJS.Timeout;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({
    threads: 1,
    sequences: 4,
    contextSize: 512,
    hooks: new HookRegistry(),
  });
  monitor = setInterval(() => {
    peakRunning = Math.max(peakRunning, backend.context.runningGenerations);
  }, 1);
});

afterAll(async () => {
  clearInterval(monitor);
  await backend?.dispose();
});

async function nativeIdle(): Promise<void> {
  while (backend.context.runningGenerations > 0) await new Promise((resolve) => setTimeout(resolve, 2));
}

interface NativeOutput {
  finishReason: string;
  generatedTokens: number;
  reusedPromptTokens: number;
}

const nativeOf = (thunk: ModelOutputThunk<unknown>) => thunk.generateLog?.modelOutput as NativeOutput;
const prompt = new CBlock("Write a long story about a lighthouse keeper and the sea.");

describe("pooled strategies on the tiny model", () => {
  it("rejection sampling: every sample fails at its first token, is cancelled, and the budget is kept", async () => {
    peakRunning = 0;
    const result = await new RejectionSamplingStrategy({ loopBudget: 3, concurrencyBudget: 2 }).sample(
      prompt,
      new SimpleContext(),
      backend,
      [minTokenLogprobRequirement(0.5)],
      { modelOptions: { maxNewTokens: 200, temperature: 1, seed: 5 } },
    );
    await nativeIdle();
    expect(result.success).toBe(false);
    expect(result.report).toMatchObject({
      attempts: 6,
      attemptLimit: 6,
      cancelledByValidation: 6,
      concurrency: 2,
    });
    expect(result.report!.peakLive).toBeLessThanOrEqual(2);
    expect(peakRunning).toBeLessThanOrEqual(2);
    expect(result.sampleGenerations).toHaveLength(6);
    for (const [index, thunk] of result.sampleGenerations.entries()) {
      const native = nativeOf(thunk);
      expect(thunk.cancelled).toBe(true);
      expect(native.finishReason).toBe("abort");
      // Read before the cancel + the native queue (32 events) + at most one step in flight.
      expect(native.generatedTokens).toBeLessThanOrEqual(thunk.generation.usage!.completionTokens + 33);
      expect(native.generatedTokens).toBeLessThan(200);
      // The prompt is prefilled once: every later sample copies (or keeps) its cells.
      if (index > 0) expect(native.reusedPromptTokens, `sample ${index}`).toBeGreaterThan(0);
    }
    expect(result.report!.tokensDiscarded).toBe(result.report!.tokensGenerated);
  });

  it("a concurrencyBudget above the context's sequences is capped there, and the cap is reported", async () => {
    peakRunning = 0;
    const result = await new RejectionSamplingStrategy({ loopBudget: 1, concurrencyBudget: 8 }).sample(
      prompt,
      new SimpleContext(),
      backend,
      [minTokenLogprobRequirement(0.5)],
      { modelOptions: { maxNewTokens: 50, temperature: 1, seed: 6 } },
    );
    await nativeIdle();
    expect(result.report).toMatchObject({ requestedConcurrency: 8, concurrency: 4, attempts: 8 });
    expect(result.report!.concurrencyCap).toBe(
      "concurrencyBudget 8 capped at the backend's 4 parallel sequences",
    );
    expect(peakRunning).toBeLessThanOrEqual(4);
  });

  it("best-of-n with sumTokenLogprob and pruneLosers chooses the best passing sample within n attempts", async () => {
    peakRunning = 0;
    const result = await new BestOfNStrategy({
      n: 4,
      concurrencyBudget: 2,
      score: sumTokenLogprob,
      pruneLosers: true,
    }).sample(prompt, new SimpleContext(), backend, [minTokenLogprobRequirement(Number.NEGATIVE_INFINITY)], {
      modelOptions: { maxNewTokens: 24, temperature: 1, seed: 7 },
    });
    await nativeIdle();
    expect(result.report!.attempts).toBeLessThanOrEqual(4);
    expect(result.report!.peakLive).toBeLessThanOrEqual(2);
    expect(peakRunning).toBeLessThanOrEqual(2);
    const scores = result.sampleGenerations.map((thunk) => sumTokenLogprob(thunk));
    expect(sumTokenLogprob(result.result)).toBe(Math.max(...scores));
    expect(result.report!.completed + result.report!.cancelledAsLosers).toBe(result.report!.attempts);
  });

  it("majority voting runs its n samples with at most concurrencyBudget live", async () => {
    peakRunning = 0;
    const result = await new MajorityVotingStrategy({ n: 3, concurrencyBudget: 2 }).sample(
      prompt,
      new SimpleContext(),
      backend,
      [minTokenLogprobRequirement(Number.NEGATIVE_INFINITY)],
      { modelOptions: { maxNewTokens: 8, temperature: 1, seed: 8 } },
    );
    await nativeIdle();
    expect(result.report).toMatchObject({ attempts: 3, completed: 3, concurrency: 2 });
    expect(peakRunning).toBeLessThanOrEqual(2);
  });
});

describe("early cancel over OpenAIBackend against tessera serve", () => {
  let server: TesseraServer;
  const serverThunks: Array<ModelOutputThunk<unknown>> = [];

  beforeAll(async () => {
    backend.hooks.on("generationError", ({ thunk }) => {
      if (thunk !== null) serverThunks.push(thunk as ModelOutputThunk<unknown>);
    });
    server = await startTesseraServer({ backend, port: 0, queue: 8 });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("closing the HTTP stream cancels the server's generation", async () => {
    const remote = new OpenAIBackend({
      baseUrl: `${server.url}/v1`,
      apiKey: "none",
      model: "tiny",
      hooks: new HookRegistry(),
    });
    const failsAtOnce = new StandardRequirement("fails on the first delta", {
      validate: () => false,
      streamValidate: () => new PartialValidationResult("fail", { reason: "first delta" }),
    });
    const result = await new RejectionSamplingStrategy({ loopBudget: 2 }).sample(
      prompt,
      new SimpleContext(),
      remote,
      [failsAtOnce],
      { modelOptions: { maxNewTokens: 400, temperature: 1, seed: 9 } },
    );
    expect(result.report).toMatchObject({ attempts: 2, cancelledByValidation: 2 });
    for (const thunk of result.sampleGenerations) expect(thunk.cancelled).toBe(true);
    // The server saw each client disconnect and cancelled its local generation long before 400 tokens.
    await nativeIdle();
    for (let waited = 0; serverThunks.length < 2 && waited < 2000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(serverThunks).toHaveLength(2);
    // nativeIdle() returning is the native side's word that both generations ended: an uncancelled one
    // would have paused on its full queue, never ended. (A generation stopped through the request's abort
    // signal does not record the native token count, so the tokens read are checked.)
    for (const thunk of serverThunks) {
      expect(thunk.generation.finishReasons).toEqual(["abort"]);
      expect(thunk.generation.usage!.completionTokens).toBeLessThan(400);
    }
  });
});
