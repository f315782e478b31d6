// Which tokenizer sizes `bench ttfb`'s prompts: node-llama-cpp's where its row runs, else a tessera
// row's, else a tokenizer the caller loads (server rows alone bring none). A row that did not load cannot
// count: its counter is dropped at its first failure and the next one counts. A node-llama-cpp row that
// failed to load used to end the whole benchmark at the first prompt's sizing.
import type { BenchTarget } from "./bench-target.js";

export function promptTokenCounter(
  targets: readonly BenchTarget[],
  /** Loads a tokenizer of the rows' model once, when no row can count; null: none (lengths estimated). */
  loadOwn: (() => Promise<(text: string) => number>) | null,
): ((text: string) => Promise<number>) | undefined {
  const counters = [
    ...targets.filter((target) => target.name.startsWith("node-llama-cpp") && target.countTokens),
    ...targets.filter((target) => !target.name.startsWith("node-llama-cpp") && target.countTokens),
  ];
  if (counters.length === 0 && loadOwn === null) return undefined;
  let own: Promise<(text: string) => number> | null = null;
  return async (text) => {
    while (counters.length > 0) {
      const counter = counters[0]!;
      try {
        return await counter.countTokens!(text);
      } catch {
        // Another call may have dropped it already; drop only this one.
        if (counters[0] === counter) counters.shift();
      }
    }
    if (loadOwn === null) throw new Error("no row could size the prompts, and no tokenizer was given");
    own ??= loadOwn();
    return (await own)(text);
  };
}
