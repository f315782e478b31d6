// Measures of a text model: a sample of N characters from BOS, and the share of its words that are
// words of the corpus (letters only, case-folded; a "word" the model invented does not count).
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";

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
