// Measures of a text model: bits per character on held-out documents, recomputed from the model's own
// prompt log-probabilities; a sample of N characters from BOS, and the share of its words that are
// words of the corpus (letters only, case-folded; a "word" the model invented does not count).
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { TrainingError } from "./errors/training-error.js";

export function corpusWords(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? []);
}

export interface TextSample {
  readonly text: string;
  readonly words: number;
  readonly knownWords: number;
  readonly knownShare: number;
}

export async function sampleText(
  modelPath: string,
  vocabulary: ReadonlySet<string>,
  options: { characters: number; temperature: number; seed: number; prompt?: string; threads?: number },
): Promise<TextSample> {
  const model = await loadLlamaModel(modelPath);
  try {
    const prompt = model.tokenize(options.prompt ?? "");
    // Characters, not tokens: a byte token can be part of a character, a BPE token several. A
    // character takes at most 4 byte tokens; the rest is room for tokens with no text.
    const maxTokens = options.characters * 4 + 64;
    // The context holds the whole budget (500 characters need 2064 tokens, more than a fixed 1024).
    const context = await model.createContext({
      contextSize: prompt.length + maxTokens,
      threads: options.threads ?? 1,
    });
    try {
      const stream = context.generate(prompt, {
        temperature: options.temperature,
        seed: options.seed,
        maxTokens,
        ignoreEos: true,
      });
      for await (const _ of stream.batches()) {
        if ([...stream.text].length >= options.characters) break;
      }
      const text = [...stream.text].slice(0, options.characters).join("");
      const words = text.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? [];
      const knownWords = words.filter((word) => vocabulary.has(word)).length;
      return { text, words: words.length, knownWords, knownShare: knownWords / Math.max(1, words.length) };
    } finally {
      context.dispose();
    }
  } finally {
    await model[Symbol.asyncDispose]();
  }
}

export interface HeldOutLoss {
  readonly bitsPerCharacter: number;
  readonly characters: number;
  /** Tokens scored: every token of every document (with its separator), once. */
  readonly scoredTokens: number;
  readonly documents: number;
  /** Documents longer than one window, scored in overlapping windows (each character once). */
  readonly windowedDocuments: number;
  /** The window used, in tokens (the one asked for, capped at the model's trained context). */
  readonly window: number;
}

/** Smallest window: half of it is the context every later window keeps (and the loop's step). */
export const minimumHeldOutWindow = 16;

/**
 * Bits per character of `documents` (each followed by the corpus's "\n\n" separator), each read from
 * BOS as a prompt is at inference: the mean of −log2 p(character | the characters before it in its
 * document). This is not the training record's figure: ggml-opt scores fixed 256-token rows cut at line
 * starts, which may begin mid-document and carry the previous document as context. A document longer than
 * the window is scored in windows that overlap by half, each character once, with at least half a window
 * of its own document before it. Keep the window within the training sequence length: later positions
 * were never trained.
 */
export async function heldOutBitsPerCharacter(
  modelPath: string,
  documents: readonly string[],
  options: { window?: number; threads?: number } = {},
): Promise<HeldOutLoss> {
  const asked = options.window ?? 256;
  if (!Number.isInteger(asked) || asked < minimumHeldOutWindow) {
    throw new TrainingError(
      `window must be an integer of at least ${minimumHeldOutWindow} tokens, got ${asked}; use the training sequence length`,
      { option: "window" },
    );
  }
  if (!Array.isArray(documents)) {
    throw new TrainingError(
      `documents is ${kindOf(documents)}, not a list: pass the held-out documents as an array of strings`,
      { option: "documents" },
    );
  }
  if (documents.length === 0) {
    throw new TrainingError("no documents to score: pass at least one held-out document", {
      option: "documents",
    });
  }
  // From plain JavaScript a number or an object would be scored as its printed form ("[object Object]").
  const notText = documents.findIndex((document) => typeof document !== "string");
  if (notText !== -1) {
    const value = documents[notText] as unknown;
    throw new TrainingError(
      `documents[${notText}] is ${kindOf(value)}, not text: pass each held-out document as a string`,
      { option: "documents" },
    );
  }
  const model = await loadLlamaModel(modelPath);
  try {
    const window = Math.min(asked, model.metadata.trainContextSize - 2);
    // A model trained on fewer positions leaves no window to score in (and a context llama.cpp refuses,
    // which would name createContext's contextSize instead of what the caller can change).
    if (window < minimumHeldOutWindow) {
      const trained = model.metadata.trainContextSize;
      const left = window > 0 ? `a window of ${window} tokens` : "no window";
      throw new TrainingError(
        `the model was trained on ${trained} ${trained === 1 ? "position" : "positions"}, which leaves ${left}; scoring needs at least ${minimumHeldOutWindow} (a model trained on at least ${minimumHeldOutWindow + 2} positions)`,
        { option: "window" },
      );
    }
    // The window, BOS and room for the one token generate() must produce.
    const context = await model.createContext({ contextSize: window + 2, threads: options.threads ?? 1 });
    try {
      let nats = 0;
      let characters = 0;
      let scoredTokens = 0;
      let windowedDocuments = 0;
      const stride = Math.max(1, Math.floor(window / 2));
      for (const document of documents) {
        const text = `${document}\n\n`;
        characters += [...text].length;
        const tokens = model.tokenize(text, { addSpecial: false });
        if (tokens.length > window) windowedDocuments++;
        // tokens[0, scored) of this document are scored; each window scores only what follows them.
        let scored = 0;
        for (let start = 0; scored < tokens.length; start = scored - stride) {
          const piece = tokens.subarray(start, start + window);
          const prompt = new Int32Array(piece.length + 1);
          prompt[0] = model.metadata.bos;
          prompt.set(piece, 1);
          // The one generated token is not scored; only the prompt's log-probabilities are.
          const { promptLogprobs: logprobs } = await context
            .generate(prompt, { promptLogprobs: true, maxTokens: 1, temperature: 0 })
            .collect();
          if (logprobs === null) throw new TrainingError("llama.cpp returned no prompt log-probabilities");
          // logprobs[i] scores prompt[i], which is tokens[start + i - 1].
          for (let index = scored - start + 1; index < prompt.length; index++) {
            nats -= logprobs[index]!;
            scoredTokens++;
          }
          scored = start + piece.length;
        }
      }
      return {
        bitsPerCharacter: nats / characters / Math.LN2,
        characters,
        scoredTokens,
        documents: documents.length,
        windowedDocuments,
        window,
      };
    } finally {
      context.dispose();
    }
  } finally {
    await model[Symbol.asyncDispose]();
  }
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
