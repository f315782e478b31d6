// `models evaluate --task text` recomputes bits per character from the model's own prompt
// log-probabilities (heldOutBitsPerCharacter), each held-out fortune read from BOS, long ones in
// overlapping windows that score every token once.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { trainedPresetPath } from "../../src/gguf/trained-presets.js";
import { TrainingError } from "../../src/training/errors/training-error.js";
import { fortunesText, loadFortunes } from "../../src/training/fortunes-corpus.js";
import { heldOutBitsPerCharacter } from "../../src/training/text-evaluation.js";
import { writeMicroModel } from "./micro-model.js";

const path = trainedPresetPath("tiny-text");

describe("heldOutBitsPerCharacter", () => {
  it("scores every character of the held-out fortunes once, far below the random start", async () => {
    const { heldOut } = fortunesText(await loadFortunes(), 0.05, 1);
    const documents = heldOut.slice(0, 20);
    const loss = await heldOutBitsPerCharacter(path, documents, { window: 256 });
    const characters = documents.reduce((sum, document) => sum + document.length + 2, 0);
    expect(loss.characters).toBe(characters);
    // A character-level vocabulary: one token per printable ASCII character.
    expect(loss.scoredTokens).toBe(characters);
    // Random start: 8.51 bits; the committed model: ~2.5-2.6 on all 236 held-out fortunes.
    expect(loss.bitsPerCharacter).toBeGreaterThan(1.5);
    expect(loss.bitsPerCharacter).toBeLessThan(3.2);
  }, 120_000);

  it("windows a long document so that each token is scored once, with context from its own document", async () => {
    // Within the 256 positions the model was trained on, so the whole reading is a fair reference.
    const long = "The quick brown fox jumps over the lazy dog. ".repeat(5).trim();
    const whole = await heldOutBitsPerCharacter(path, [long], { window: 256 });
    const windowed = await heldOutBitsPerCharacter(path, [long], { window: 64 });
    expect(windowed.windowedDocuments).toBe(1);
    expect(whole.windowedDocuments).toBe(0);
    expect(windowed.scoredTokens).toBe(long.length + 2);
    expect(whole.scoredTokens).toBe(long.length + 2);
    // A repeated sentence becomes predictable once seen: both readings learn it from context, so the
    // windowed one (at least 32 tokens of context) stays close to the whole one, not at a cold start.
    expect(Math.abs(windowed.bitsPerCharacter - whole.bitsPerCharacter)).toBeLessThan(1);
  }, 120_000);

  it("scores text unlike the corpus far worse than a held-out fortune", async () => {
    const { heldOut } = fortunesText(await loadFortunes(), 0.05, 1);
    const fortune = await heldOutBitsPerCharacter(path, heldOut.slice(0, 5));
    const noise = await heldOutBitsPerCharacter(path, [
      "qZ8#kX!vP0@wJ3$mQ7%bN1^tY6&hL4*",
      "9xR_2Vz+Kd;G5|cF",
    ]);
    expect(noise.bitsPerCharacter).toBeGreaterThan(fortune.bitsPerCharacter + 2);
  }, 120_000);

  // Review of issue 16 (F3): a window that scored its already-scored first tokens instead of its new ones
  // kept the count right and passed the checks above. Here every token's log-probability is taken by the
  // formula: window j starts at j·stride and scores tokens [(j+1)·stride, (j+2)·stride) (window 0: [0, w)).
  it("scores each token with the context of the window the formula gives it", async () => {
    const window = 64;
    const stride = window / 2;
    const document = "Alpha beta gamma delta, the river runs; a stone, a garden, a letter.".repeat(3);
    const loss = await heldOutBitsPerCharacter(path, [document], { window });
    const model = await loadLlamaModel(path);
    const context = await model.createContext({ contextSize: window + 2, threads: 1 });
    try {
      const tokens = model.tokenize(`${document}\n\n`, { addSpecial: false });
      expect(tokens.length).toBeGreaterThan(2 * window);
      let nats = 0;
      for (let j = 0; j * stride < tokens.length; j++) {
        const first = j === 0 ? 0 : (j + 1) * stride;
        const end = Math.min(tokens.length, j === 0 ? window : (j + 2) * stride);
        if (first >= end) break;
        const piece = tokens.subarray(j * stride, j * stride + window);
        const prompt = Int32Array.from([model.metadata.bos, ...piece]);
        const result = await context
          .generate(prompt, { promptLogprobs: true, maxTokens: 1, temperature: 0 })
          .collect();
        for (let k = first; k < end; k++) nats -= result.promptLogprobs![k - j * stride + 1]!;
      }
      const expected = nats / [...`${document}\n\n`].length / Math.LN2;
      expect(loss.bitsPerCharacter).toBeCloseTo(expected, 6);
    } finally {
      context.dispose();
      await model[Symbol.asyncDispose]();
    }
  }, 120_000);

  it("refuses a window under 16 tokens or not an integer, and an empty document list", async () => {
    for (const window of [0, 1, 13, 100.5, Number.NaN, -5]) {
      await expect(heldOutBitsPerCharacter(path, ["text"], { window })).rejects.toSatisfy(
        (error: unknown) => TrainingError.isInstance(error) && error.option === "window",
      );
    }
    await expect(heldOutBitsPerCharacter(path, [])).rejects.toSatisfy(
      (error: unknown) => TrainingError.isInstance(error) && /no documents/.test(String(error)),
    );
  });
});

// Review of issue 16 (F2): `models evaluate tiny-arith --task text` printed the sorting loss as "bits per
// character", and tiny-text ran as a sorting model.
describe("models evaluate --task against the model's training corpus", () => {
  it("refuses a task the trained model was not trained on, naming --task and the right one", async () => {
    const { runCli, linesOf } = await import("../cli/support/run-cli.js");
    for (const [model, task, right] of [
      ["tiny-arith", "text", "sorting"],
      ["tiny-text", "sorting", "text"],
    ] as const) {
      const result = await runCli(["models", "evaluate", model, "--task", task, "--problems", "3"]);
      expect(result.code, result.stderr).toBe(1);
      const lines = linesOf(result.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`--task ${task}`);
      expect(lines[0]).toContain(`use --task ${right}`);
      expect(result.stdout).toBe("");
    }
  }, 60_000);
});

describe("taskOfCorpusDescription", () => {
  it("reads the task from the description's first words, not from words anywhere in it", async () => {
    const { taskOfCorpusDescription } = await import("../../src/training/training-corpus.js");
    expect(taskOfCorpusDescription("sorting: 4 digits = the digits in ascending order, 9600 …")).toBe(
      "sorting",
    );
    expect(taskOfCorpusDescription("addition: a+b=c, operands 0-99, …")).toBe("addition");
    expect(taskOfCorpusDescription("Debian fortunes (/usr/share/games/fortunes: …)")).toBe("text");
    // A text file whose name mentions a task is still text.
    expect(taskOfCorpusDescription("text file sorting-addition.txt (sha256 ab12…, 300 characters)")).toBe(
      "text",
    );
    expect(taskOfCorpusDescription("something else")).toBeUndefined();
  });

  it("refuses a model trained on too few positions by its trained context, not by a context size", async () => {
    const folder = await mkdtemp(join(tmpdir(), "tessera-short-context-"));
    try {
      const short = await writeMicroModel(folder, 1, "F32", 12);
      const refusal = await heldOutBitsPerCharacter(short, ["a fortune"]).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(TrainingError);
      expect((refusal as TrainingError).option).toBe("window");
      expect((refusal as Error).message).toMatch(/trained on 12 positions.*window of 10 tokens.*at least 16/);
      expect((refusal as Error).message).not.toMatch(/contextSize/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("refuses a document that is not text before loading the model", async () => {
    for (const [value, kind] of [
      [42, "a number"],
      [null, "null"],
      [["a"], "an array"],
      [{ text: "a" }, "an object"],
      [undefined, "undefined"],
    ] as const) {
      const refusal = await heldOutBitsPerCharacter(path, ["fine", value as never]).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(TrainingError);
      expect((refusal as TrainingError).option).toBe("documents");
      expect((refusal as Error).message).toContain(`documents[1] is ${kind}, not text`);
    }
  });

  it("refuses documents that are not a list, and reads well for a model trained on one position", async () => {
    for (const [value, kind] of [
      ["one document", "a string"],
      [new Set(["a"]), "an object"],
    ] as const) {
      const refusal = await heldOutBitsPerCharacter(path, value as never).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(TrainingError);
      expect((refusal as TrainingError).option).toBe("documents");
      expect((refusal as Error).message).toContain(`documents is ${kind}, not a list`);
    }
    const folder = await mkdtemp(join(tmpdir(), "tessera-one-position-"));
    try {
      const one = await writeMicroModel(folder, 1, "F32", 1);
      const refusal = await heldOutBitsPerCharacter(one, ["a"]).catch((error: unknown) => error);
      expect((refusal as Error).message).toMatch(/trained on 1 position, which leaves no window;/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
