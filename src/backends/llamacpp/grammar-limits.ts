// llama.cpp parses a GBNF grammar and expands its rules by recursion, with no depth limit of its own:
// a deep enough grammar overflows the stack of the JavaScript thread (SIGSEGV). These checks bound it
// before the grammar reaches the addon.
import { InvalidOptionError } from "./errors/invalid-option-error.js";
import { maximumGrammarBytes, maximumGrammarNesting } from "./native-limits.js";

export function checkGrammarLimits(grammar: string): void {
  const bytes = Buffer.byteLength(grammar, "utf8");
  if (bytes > maximumGrammarBytes) {
    throw new InvalidOptionError(
      "grammar",
      `a GBNF grammar of at most ${maximumGrammarBytes} bytes (split it into fewer, shorter rules)`,
      `a grammar of ${bytes} bytes`,
      { most: maximumGrammarBytes, unit: "bytes" },
    );
  }
  const nesting = groupNesting(grammar);
  if (nesting > maximumGrammarNesting) {
    throw new InvalidOptionError(
      "grammar",
      `a GBNF grammar with at most ${maximumGrammarNesting} nested groups (move inner groups into rules of their own)`,
      `a grammar nesting ${nesting} groups deep`,
      { most: maximumGrammarNesting, unit: "nested groups" },
    );
  }
}

/** The deepest nesting of ( ) groups, skipping string literals, character classes and comments. */
export function groupNesting(grammar: string): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < grammar.length; index++) {
    const character = grammar[index];
    if (character === '"' || character === "[") {
      const close = character === '"' ? '"' : "]";
      for (index++; index < grammar.length && grammar[index] !== close; index++) {
        if (grammar[index] === "\\") index++;
      }
    } else if (character === "#") {
      while (index < grammar.length && grammar[index] !== "\n") index++;
    } else if (character === "(") {
      depth++;
      deepest = Math.max(deepest, depth);
    } else if (character === ")") {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}
