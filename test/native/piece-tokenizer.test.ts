// A chat prompt (special tokens parsed, none added) is tokenized piece by piece between its special
// tokens, reusing the tokens of pieces seen before (piece-tokenizer.ts). Its tokens must be exactly those
// of llama.cpp tokenizing the whole text: checked here against the raw addon's own whole-text tokenize on
// every preset vocabulary (Llama 2's SentencePiece, Llama 3's byte-level BPE with its 256 special tokens,
// the character vocabulary of the trained presets), on texts built to find a difference (special texts
// glued together, halves of them, whitespace beside them, non-ASCII text, lone surrogates). A vocabulary
// whose special tokens strip whitespace (phi-3's) is tokenized whole: llama.cpp gives that attribute by
// model name and needs tokens no preset vocabulary has, so a GGUF named "phi3" with these vocabularies
// does not load, and the stripping could not be compared with llama.cpp's.
import { describe, expect, it } from "vitest";
import type { NativeModel } from "../../src/backends/llamacpp/addon-types.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { SpecialTokenSplit } from "../../src/backends/llamacpp/special-token-split.js";
import { resolveModel } from "../../src/gguf/default-model.js";

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function specialTexts(native: NativeModel): string[] {
  const decoder = new TextDecoder();
  return native.specialTokens().texts.map((bytes) => decoder.decode(bytes));
}

/** Texts made to split in every way: special texts alone, glued, halved, padded with whitespace. */
function trickyTexts(specials: readonly string[], seed: number, count: number): string[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  // The first few special texts (BOS, EOS, the chat markers) occur in prompts; the rest are mostly reserved.
  const common = specials.slice(0, 12);
  const words = [
    "hello",
    "there",
    "the list:",
    "réponse",
    "中文",
    "🙂",
    "a\u0301",
    "[INST]",
    "[/INST]",
    "<<SYS>>",
  ];
  const spaces = [" ", "  ", "\n", "\n\n", "\t", "\r\n", " \n ", "\u00a0", "\v", "\f"];
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    let text = "";
    const parts = 1 + Math.floor(next() * 12);
    for (let part = 0; part < parts; part++) {
      const roll = next();
      if (roll < 0.3) text += pick(next() < 0.7 ? common : specials);
      else if (roll < 0.4) {
        const special = pick(common);
        text += next() < 0.5 ? special.slice(0, Math.ceil(special.length / 2)) : special.slice(1);
      } else if (roll < 0.65) text += pick(words);
      else if (roll < 0.9) text += pick(spaces);
      else text += next() < 0.5 ? "\ud800" : "\udfff";
    }
    texts.push(text);
  }
  return texts;
}

async function expectSameTokens(path: string, seed: number): Promise<{ hits: number; misses: number }> {
  const native = await loadNativeAddon().loadModel(path, { gpuLayers: 0, useMmap: true }).promise;
  const model: LlamaModel = await loadLlamaModel(path);
  try {
    const texts = [
      ...trickyTexts(specialTexts(native), seed, 400),
      // A conversation as the built-in llama2 and chatml templates render it, turn after turn.
      "<s>[INST] Write a haiku. [/INST] Tokens fall like rain </s><s>[INST] Again, shorter. [/INST]",
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
      "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
      "",
    ];
    // Each text twice: once tokenized, once from the kept pieces.
    for (const text of [...texts, ...texts]) {
      const whole = native.tokenize(text, false, true);
      const pieces = model.tokenize(text, { addSpecial: false, parseSpecial: true });
      expect(Array.from(pieces), JSON.stringify(text)).toEqual(Array.from(whole));
    }
    // Other option combinations still tokenize the whole text.
    expect(Array.from(model.tokenize("<s> hi </s>", { parseSpecial: true }))).toEqual(
      Array.from(native.tokenize("<s> hi </s>", true, true)),
    );
    const counters = model.promptPieceCounters;
    expect(counters).not.toBeNull();
    return counters!;
  } finally {
    model.dispose();
    native.dispose();
  }
}

describe("piece-by-piece tokenization of chat prompts", () => {
  it("gives llama.cpp's tokens on Llama 2's SentencePiece vocabulary (the tiny model)", async () => {
    const counters = await expectSameTokens(await resolveModel("tiny"), 1);
    expect(counters.hits).toBeGreaterThan(0);
    expect(counters.misses).toBeGreaterThan(0);
  }, 60_000);

  it("gives llama.cpp's tokens on Llama 3's byte-level BPE vocabulary, 256 special tokens", async () => {
    await expectSameTokens(await resolveModel("tiny-bpe:q4_0"), 2);
  }, 120_000);

  it("gives llama.cpp's tokens on the trained presets' character vocabulary", async () => {
    await expectSameTokens(await resolveModel("tiny-text"), 3);
  }, 60_000);

  it("tokenizes whole texts where a special token strips whitespace, as phi-3's do (not checkable here)", async () => {
    const split = SpecialTokenSplit.of({
      ids: Int32Array.from([1]),
      attributes: Uint32Array.from([(1 << 3) | (1 << 8)]),
      texts: [new TextEncoder().encode("<|end|>")],
    });
    expect(split).toBeNull();
  });

  it("splits a long text of thousands of special texts in one pass (it was quadratic: 5 s for 127 KB)", async () => {
    const path = await resolveModel("tiny-bpe:q4_0");
    const native = await loadNativeAddon().loadModel(path, { gpuLayers: 0, useMmap: true }).promise;
    const model = await loadLlamaModel(path);
    try {
      // Every fragment after a cut used to search to the text's end for <|begin_of_text|>, which occurs
      // once, at the start: 20,000 fragments × 640 KB. In one pass this takes milliseconds.
      const text = `<|begin_of_text|>${"<|reserved_special_token_200|>a".repeat(20_000)}<|eot_id|>`;
      const pieces = model.tokenize(text, { addSpecial: false, parseSpecial: true });
      expect(pieces.length).toBe(40_002);
      expect(Array.from(pieces)).toEqual(Array.from(native.tokenize(text, false, true)));
    } finally {
      model.dispose();
      native.dispose();
    }
  }, 60_000);

  it("keeps copies of pieces, not the prompts they were cut from", async () => {
    // A kept slice of a prompt kept the whole prompt (V8 keeps a long slice as a view): requests sharing a
    // long system prompt, each with its own question, grew the heap by 410 MB in 2,000 requests. Measured
    // in a child with --expose-gc, so the heap is collected before each reading.
    const script = `
      const { loadLlamaModel } = await import(${JSON.stringify(new URL("../../dist/backends/llamacpp/llama-model.js", import.meta.url).href)});
      const model = await loadLlamaModel(process.argv[1]);
      const system = "Answer briefly 🙂. ".repeat(6_000);
      const heap = () => { globalThis.gc(); return process.memoryUsage().heapUsed; };
      const before = heap();
      for (let request = 0; request < 400; request++)
        model.tokenize(\`<s>\${system}</s><s>Question number \${request}, please?</s>\`, { addSpecial: false, parseSpecial: true });
      console.log(JSON.stringify({ grown: heap() - before, counters: model.promptPieceCounters }));
      model.dispose();`;
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--expose-gc", "--input-type=module", "-e", script, await resolveModel("tiny")],
      { maxBuffer: 1 << 20 },
    );
    const { grown, counters } = JSON.parse(stdout.trim()) as { grown: number; counters: { misses: number } };
    expect(counters.misses).toBeGreaterThanOrEqual(400);
    // Each request's question is a piece of its own: kept as a slice, it kept its 216 KB prompt (two
    // bytes per character): ~86 MB for 400 requests.
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  }, 120_000);

  it("reuses a conversation's earlier pieces: the second turn tokenizes only what is new", async () => {
    const model = await loadLlamaModel(await resolveModel("tiny"));
    try {
      const first = "<s>[INST] Write a long story about a river. [/INST] Once upon a time a river ran. </s>";
      model.tokenize(first, { addSpecial: false, parseSpecial: true });
      const before = model.promptPieceCounters!;
      model.tokenize(`${first}<s>[INST] Go on. [/INST]`, { addSpecial: false, parseSpecial: true });
      const after = model.promptPieceCounters!;
      // The first turn's one piece is found kept; the new turn's piece is tokenized.
      expect(after.hits - before.hits).toBe(1);
      expect(after.misses - before.misses).toBe(1);
    } finally {
      model.dispose();
    }
  }, 60_000);
});

describe("the special-token split itself", () => {
  const ids = Int32Array.from([7, 8, 9]);
  const encode = (text: string) => new TextEncoder().encode(text);

  it("strips whitespace before an lstrip token and after an rstrip token, as llama.cpp's partition reads (when allowed)", () => {
    const split = SpecialTokenSplit.of(
      {
        ids,
        attributes: Uint32Array.from([(1 << 3) | (1 << 7), (1 << 3) | (1 << 8), 1 << 3]),
        texts: [encode("<l>"), encode("<r>"), encode("<plain>")],
      },
      { allowStrip: true },
    )!;
    expect(split.split("a \n<l> b<r> \t c <plain> d")).toEqual([
      { text: "a" },
      { token: 7 },
      { text: " b" },
      { token: 8 },
      { text: "c " },
      { token: 9 },
      { text: " d" },
    ]);
    // Whitespace alone between them disappears: no empty piece is tokenized.
    expect(split.split("<r>  <l>")).toEqual([{ token: 8 }, { token: 7 }]);
  });

  it("splits at the longest special text first", () => {
    const split = SpecialTokenSplit.of({
      ids,
      attributes: Uint32Array.from([8, 8, 8]),
      texts: [encode("<a>"), encode("<a><b>"), encode("b")],
    })!;
    expect(split.split("x<a><b>b<a>")).toEqual([{ text: "x" }, { token: 8 }, { token: 9 }, { token: 7 }]);
  });

  it("keeps a leading byte-order mark of a special text, and cuts a lone surrogate's text as U+FFFD", () => {
    const attributes = Uint32Array.from([8, 8]);
    const split = SpecialTokenSplit.of({
      ids: Int32Array.from([7, 8]),
      attributes,
      texts: [Uint8Array.from([0xef, 0xbb, 0xbf, ...encode("<x>")]), encode("<y>")],
    })!;
    // llama.cpp compares bytes: "<x>" alone is not the special text "\uFEFF<x>".
    expect(split.split("a<x>b")).toEqual([{ text: "a<x>b" }]);
    expect(split.split("a\uFEFF<x>b")).toEqual([{ text: "a" }, { token: 7 }, { text: "b" }]);
    // N-API hands llama.cpp a lone surrogate as U+FFFD; the pieces say what was tokenized.
    expect(split.split("<y>\ud800")).toEqual([{ token: 8 }, { text: "\ufffd" }]);
    // A special text containing U+FFFD would meet the converted surrogates: declined.
    expect(
      SpecialTokenSplit.of({
        ids: Int32Array.from([1]),
        attributes: Uint32Array.from([8]),
        texts: [encode("<\ufffd>")],
      }),
    ).toBeNull();
  });

  it("declines where llama.cpp's order is not known or a text is not UTF-8", () => {
    const attributes = Uint32Array.from([8, 8, 8]);
    // Equal byte lengths that can overlap ("ab" then "bc" in "abc"): llama.cpp's unstable sort decides.
    expect(
      SpecialTokenSplit.of({ ids, attributes, texts: [encode("ab"), encode("bc"), encode("zz")] }),
    ).toBeNull();
    // Two tokens with one text.
    expect(
      SpecialTokenSplit.of({ ids, attributes, texts: [encode("<s>"), encode("<s>"), encode("x")] }),
    ).toBeNull();
    expect(
      SpecialTokenSplit.of({ ids, attributes, texts: [Uint8Array.from([0xff]), encode("a"), encode("b")] }),
    ).toBeNull();
    expect(
      SpecialTokenSplit.of({ ids, attributes, texts: [encode(""), encode("a"), encode("b")] }),
    ).toBeNull();
  });
});
