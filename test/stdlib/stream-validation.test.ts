// Streaming requirements on the scripted backend (control flow only): chunkers, the driver that cancels a
// sample at its first streaming fail, the JSON schema requirement, and the soundness property.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CBlock,
  type ChunkingStrategy,
  PartialValidationResult,
  type Requirement,
} from "../../src/core/index.js";
import {
  Chunker,
  jsonSchemaRequirement,
  paragraphChunking,
  resolveChunking,
  SimpleContext,
  StandardRequirement,
  StreamingValidationFailedError,
  sentenceChunking,
  UnknownChunkingError,
  validateWhileStreaming,
  wordChunking,
} from "../../src/stdlib/index.js";
import { scripted } from "./helpers.js";

/** A small deterministic generator, so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function sliceRandomly(text: string, next: () => number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    const size = 1 + Math.floor(next() * 6);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/** Streams `chunks` through the scripted backend and runs the streaming validator on it. */
async function streamThrough(chunks: string[], requirements: Requirement[]) {
  const backend = scripted([{ text: chunks.join(""), chunks }], { queueCapacity: 1 });
  const context = new SimpleContext();
  const { thunk, context: sampleContext } = await backend.generateFromContext(new CBlock("q"), context);
  const failure = await validateWhileStreaming(thunk, requirements, context);
  return { backend, thunk, failure, sampleContext };
}

/** Fails (while streaming and at the end) when the output has more than `limit` words. */
function atMostWords(limit: number): StandardRequirement {
  return new StandardRequirement(`at most ${limit} words`, {
    validate: (context) => {
      const words = (context.lastOutput()?.value ?? "").split(/\s+/).filter((word) => word.length > 0);
      return words.length <= limit ? true : [false, `${words.length} words`];
    },
    streamChunking: wordChunking,
    streamValidate: ({ chunkIndex }) =>
      new PartialValidationResult(chunkIndex + 1 > limit ? "fail" : "unknown", {
        reason: `word ${chunkIndex + 1} is past the limit`,
      }),
  });
}

/** Fails on the word `word` (case-sensitive, whole word). */
function never(word: string): StandardRequirement {
  return new StandardRequirement(`never says ${word}`, {
    validate: (context) =>
      !(context.lastOutput()?.value ?? "").split(/\s+/).includes(word) || [false, `says ${word}`],
    streamChunking: wordChunking,
    streamValidate: ({ chunk }) => new PartialValidationResult(chunk === word ? "fail" : "unknown"),
  });
}

describe("chunking strategies", () => {
  it("words withhold the last fragment until whitespace follows, and flush releases it", () => {
    expect(wordChunking.split("  one two thr")).toEqual(["one", "two"]);
    expect(wordChunking.split("one two ")).toEqual(["one", "two"]);
    expect(wordChunking.flush("one two thr")).toEqual(["thr"]);
    expect(wordChunking.flush("one two ")).toEqual([]);
  });

  it("sentences end at . ! ? (with a closing quote or parenthesis) followed by whitespace", () => {
    expect(sentenceChunking.split('  Hi there. "Really?" He left (quietly.) And th')).toEqual([
      "Hi there.",
      '"Really?"',
      "He left (quietly.)",
    ]);
    expect(sentenceChunking.flush("Done. And th ")).toEqual(["And th"]);
    expect(sentenceChunking.split("3.14 is pi")).toEqual([]);
  });

  it("paragraphs are separated by two or more newlines; the fragment is flushed byte for byte", () => {
    expect(paragraphChunking.split("a\nb\n\n\nc\n\nd\n")).toEqual(["a\nb", "c"]);
    expect(paragraphChunking.flush("a\n\nd\n")).toEqual(["d\n"]);
    expect(paragraphChunking.flush("a\n\n")).toEqual([]);
  });

  it("a Chunker yields the same chunks whatever the slicing of the stream", () => {
    const text = "The cat sat. It was\n\nhappy! Was it? Yes.  Then\tit slept.\n\n\nEnd of story";
    for (const strategy of [wordChunking, sentenceChunking, paragraphChunking]) {
      const whole = [...strategy.split(text), ...strategy.flush(text)];
      for (let seed = 1; seed <= 20; seed += 1) {
        const chunker = new Chunker(strategy);
        const pieces = sliceRandomly(text, random(seed)).flatMap((piece) => chunker.feed(piece));
        expect([...pieces, ...chunker.flush()], `${strategy.name} seed ${seed}`).toEqual(whole);
      }
    }
  });

  it("a strategy that rewrites its chunks is refused by name", () => {
    const upper: ChunkingStrategy = { name: "upper", split: (text) => [text.toUpperCase()], flush: () => [] };
    expect(() => new Chunker(upper).feed("abc")).toThrow(/"upper" returned the chunk "ABC"/);
  });

  it("names resolve to the built-in strategies; an unknown name says which exist", () => {
    expect(resolveChunking("sentence")).toBe(sentenceChunking);
    expect(() => resolveChunking("token")).toThrow(UnknownChunkingError);
    expect(() => resolveChunking("token")).toThrow(/"word", "sentence", "paragraph"/);
  });
});

describe("validating a sample while it streams", () => {
  it("cancels at the first fail, keeps the partial text, flags the thunk cancelled and stops the producer", async () => {
    const words = Array.from({ length: 40 }, (_, index) => (index === 3 ? "bad " : `w${index} `));
    const { backend, thunk, failure } = await streamThrough(words, [never("bad")]);
    expect(failure?.requirement.description).toBe("never says bad");
    expect(failure?.chunkIndex).toBe(3);
    expect(failure?.atEnd).toBe(false);
    expect(thunk.cancelled).toBe(true);
    expect(thunk.isComputed()).toBe(true);
    // The word is complete once the whitespace after it arrives: the text stops there, or one delta later.
    expect(thunk.value).toMatch(/^w0 w1 w2 bad (w4 )?$/);
    expect(thunk.meta.streamFailure).toMatchObject({ requirement: "never says bad", chunkIndex: 3 });
    // Queue capacity 1: the producer is at most two chunks ahead of the reader when the cancel lands.
    expect(backend.pushedChunks).toBeLessThanOrEqual(7);
  });

  it("gives the cancellation a StreamingValidationFailedError naming the requirement and the reason", async () => {
    const errors: unknown[] = [];
    const backend = scripted([{ text: "a b c d e f ", chunks: ["a ", "b ", "c ", "d ", "e ", "f "] }]);
    backend.hooks.on("generationError", ({ error }) => {
      errors.push(error);
    });
    const { thunk } = await backend.generateFromContext(new CBlock("q"), new SimpleContext());
    thunk.hooks = backend.hooks;
    await validateWhileStreaming(thunk, [atMostWords(2)], new SimpleContext());
    expect(errors).toHaveLength(1);
    expect(StreamingValidationFailedError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as Error).message).toMatch(/"at most 2 words" failed while streaming \(word 3 is past/);
  });

  it("a streamValidate that throws does not cancel: the error is recorded as the sample's reason and the final check decides", async () => {
    let calls = 0;
    const throwing = new StandardRequirement("throws", {
      validate: () => true,
      streamValidate: () => {
        calls += 1;
        throw new Error("boom");
      },
    });
    const { thunk, failure } = await streamThrough(["a ", "b ", "c ", "d "], [throwing, never("c")]);
    // The throwing check is not asked again on that sample; the other check still cancels at "c".
    expect(calls).toBe(1);
    expect(failure?.requirement.description).toBe("never says c");
    expect(thunk.cancelled).toBe(true);

    const ran = await streamThrough(["a ", "b ", "d "], [throwing]);
    expect(ran.thunk.cancelled).toBe(false);
    expect(ran.thunk.value).toBe("a b d ");
    expect(ran.failure).toMatchObject({ atEnd: true, requirement: throwing });
    expect(ran.failure?.result.reason).toMatch(/streamValidate threw: boom/);
    expect(ran.thunk.meta.streamFailure).toMatchObject({ requirement: "throws" });
  });

  it("leaves requirements without streamValidate to the final check (they are not called while streaming)", async () => {
    let calls = 0;
    const finalOnly: Requirement = {
      description: "final only",
      validate: async () => {
        calls += 1;
        throw new Error("not expected");
      },
    };
    const { thunk, failure } = await streamThrough(["one ", "two ", "three"], [finalOnly, atMostWords(5)]);
    expect(failure).toBeNull();
    expect(calls).toBe(0);
    expect(thunk.cancelled).toBe(false);
    expect(thunk.value).toBe("one two three");
  });

  it("checks the trailing fragment at the end: a fail there is reported without a cancel", async () => {
    const { thunk, failure } = await streamThrough(["one ", "two ", "bad"], [never("bad")]);
    expect(failure?.atEnd).toBe(true);
    expect(thunk.cancelled).toBe(false);
    expect(thunk.value).toBe("one two bad");
  });

  it("without chunking a requirement sees every delta, with the text so far", async () => {
    const seen: Array<[string, string]> = [];
    const everyDelta = new StandardRequirement("sees deltas", {
      validate: () => true,
      streamValidate: ({ chunk, text }) => {
        seen.push([chunk, text]);
        return new PartialValidationResult("unknown");
      },
    });
    await streamThrough(["ab", "c", "de"], [everyDelta]);
    expect(seen).toEqual([
      ["ab", "ab"],
      ["c", "abc"],
      ["de", "abcde"],
    ]);
  });
});

describe("jsonSchemaRequirement", () => {
  const schema = z.object({
    name: z.string(),
    age: z.number().int().nonnegative(),
    tags: z.array(z.string()),
  });
  const requirement = jsonSchemaRequirement(schema);

  it("fails a member with the wrong type as soon as the member is complete", async () => {
    const text = '{"name": "Ada", "age": -3, "tags": ["a", "b", "c", "d", "e"]}';
    const chunks = text.match(/.{1,3}/gs)!;
    const { thunk, failure, backend } = await streamThrough(chunks, [requirement]);
    expect(failure?.result.reason).toMatch(/age: /);
    expect(thunk.cancelled).toBe(true);
    expect(thunk.value!.length).toBeLessThan(text.indexOf("tags") + 3);
    expect(backend.pushedChunks).toBeLessThan(chunks.length);
  });

  it("fails a syntax error, a repeated key and a non-object at once", async () => {
    for (const [text, reason] of [
      ['{"name": tx', /not valid JSON/],
      ['{"name": "a", "name": "b", ', /appears twice/],
      ["[1, 2", /starts with "\["/],
    ] as const) {
      const { failure } = await streamThrough([...text], [requirement]);
      expect(failure?.result.reason, text).toMatch(reason);
    }
  });

  it("passes a matching value, and its final check agrees", async () => {
    const text = ' {"name": "Ada", "age": 36, "tags": []}\n';
    const { failure, thunk, sampleContext } = await streamThrough([...text], [requirement]);
    expect(failure).toBeNull();
    expect(thunk.cancelled).toBe(false);
    expect((await requirement.validate(scripted([]), sampleContext)).result).toBe(true);
  });

  it("the final check fails JSON that ends early or has text after the value", async () => {
    for (const text of ['{"name": "Ada", "age": 36', '{"name": "Ada", "age": 36, "tags": []} and more']) {
      const { sampleContext } = await streamThrough([text], []);
      expect((await requirement.validate(scripted([]), sampleContext)).result, text).toBe(false);
    }
  });

  it("judges keys named like Object.prototype's members as plain keys, while streaming and at the end", async () => {
    // Regression: the member check read the schema's shape up the prototype chain, so "constructor" found
    // Object and threw "fieldSchema.safeParse is not a function".
    const small = jsonSchemaRequirement(z.object({ a: z.number() }));
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      const text = `{"${key}": 1, "a": 1}`;
      const { failure, sampleContext } = await streamThrough([...text], [small]);
      expect(failure, text).toBeNull();
      expect((await small.validate(scripted([]), sampleContext)).result, text).toBe(true);
    }
  });

  it("the final check accepts a complete top-level number, which only ends at the end of the text", async () => {
    // Regression: a number completes on the character after it, so the final check must end the parse.
    for (const [schema, text, expected] of [
      [z.number(), "42", true],
      [z.number(), "-1.5e3", true],
      [z.number(), " 7 ", true],
      [z.number().int(), "4.5", false],
      [z.number(), "-", false],
      [z.number(), "1e", false],
      [z.array(z.number()), "[1, 2", false],
      [z.string(), '"ab', false],
    ] as const) {
      const requirement = jsonSchemaRequirement(schema);
      const { sampleContext } = await streamThrough([text], []);
      expect((await requirement.validate(scripted([]), sampleContext)).result, text).toBe(expected);
    }
  });
});

describe("soundness: a streaming fail never rejects a sample the final check would accept", () => {
  // Texts near the boundaries of each requirement: word counts around the limit, the forbidden word as a
  // prefix or suffix of others, JSON with every kind of damage.
  const vocabulary = ["bad", "badge", "abad", "ok", "fine", "x", "bad."];
  const jsonTexts = [
    '{"name": "Ada", "age": 36, "tags": ["x"]}',
    '{"name": "Ada", "age": 36.5, "tags": []}',
    '{"name": "Ada", "tags": [], "age": 1, "extra": {"a": [1, 2]}}',
    '{"name": 1, "age": 36, "tags": []}',
    '{"name": "Ada", "age": 36}',
    '{"name": "Ada", "age": 36, "tags": []} ',
    '{"name": "Ada", "age": 36, "tags": []} x',
    '  {"name": "A\\"da", "age": 0, "tags": ["}"]}',
    '{"name": "Ada", "name": "Bo", "age": 1, "tags": []}',
    '{"name": "Ada" "age": 36}',
    "null",
  ];
  const schema = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });

  it("holds over randomized texts and slicings for three requirements whose checks agree", async () => {
    const next = random(7);
    const cases: Array<[Requirement, string]> = [];
    for (let index = 0; index < 60; index += 1) {
      const length = Math.floor(next() * 9);
      const words = Array.from({ length }, () => vocabulary[Math.floor(next() * vocabulary.length)]!);
      const text = words.join(next() < 0.5 ? " " : "  ") + (next() < 0.5 ? " " : "");
      cases.push([atMostWords(4), text], [never("bad"), text]);
    }
    for (const text of jsonTexts) cases.push([jsonSchemaRequirement(schema), text]);
    let streamingFails = 0;
    for (const [requirement, text] of cases) {
      const { failure } = await streamThrough(sliceRandomly(text, next), [requirement]);
      const whole = await streamThrough([text], []);
      const final = await requirement.validate(scripted([]), whole.sampleContext);
      if (failure !== null) {
        streamingFails += 1;
        expect(final.result, `${requirement.description}: ${JSON.stringify(text)}`).toBe(false);
      }
    }
    // The property is not vacuous: many samples were failed while streaming.
    expect(streamingFails).toBeGreaterThan(30);
  });
});
