// Which free sequence a generation takes decides which cached history survives it. A prompt that keeps
// the whole prompt of a sequence's last generation (its next turn, a regenerate, an answer rendered
// differently) takes that sequence; any other takes an empty one, then the one sharing the longest
// prefix of 8 or more tokens, then the least recently used, and copies a shared prefix (a system prompt)
// in from another sequence. Before, a fresh prompt sharing only
// BOS, or a system prompt, with a chat took that chat's sequence while another sat empty, and the chat's
// next turn prefilled it all again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadTinyModel } from "./tiny-model.js";

describe("choosing a sequence for a generation", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  const options = { temperature: 0, maxTokens: 4, ignoreEos: true } as const;
  const chat = (text: string) => model.tokenize(text);
  const turn = (first: Int32Array, more: string) =>
    Int32Array.from([...first, ...model.tokenize(more, { addSpecial: false })]);
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 512, sequences: 2, threads: 1 });
  });
  afterAll(() => model.dispose());

  it("keeps a chat's cells when a fresh prompt arrives and another sequence is empty", async () => {
    const history = chat("A long conversation about rivers, stones and gardens, told slowly and with care");
    const first = await context.generate(history, options).collect();
    // Shares only BOS with the chat: it must take the empty sequence.
    const fresh = await context.generate(chat("Unrelated words"), options).collect();
    expect(fresh.sequence).not.toBe(first.sequence);
    const next = await context.generate(turn(history, " and then the rain came"), options).collect();
    expect(next.sequence).toBe(first.sequence);
    expect(next.reusedPromptTokens).toBe(history.length);
  });

  it("takes the least recently used sequence when none is empty, keeping the newer chat", async () => {
    // Both sequences hold something now (the test above); a new chat, then another fresh prompt.
    const newer = chat("Morning light on the window, a letter on the table, a bridge in the cloud");
    const started = await context.generate(newer, options).collect();
    const fresh = await context.generate(chat("Something else entirely"), options).collect();
    expect(fresh.sequence).not.toBe(started.sequence);
    const next = await context.generate(turn(newer, " and the forest beyond"), options).collect();
    expect(next.sequence).toBe(started.sequence);
    expect(next.reusedPromptTokens).toBe(newer.length);
  });

  it("counts least recently used from a generation's end, not its start", async () => {
    const spare = await model.createContext({ contextSize: 512, sequences: 2, threads: 1 });
    try {
      // A starts first and ends last; B starts second and ends first: B's sequence is the older one.
      const a = chat("A long chat that keeps going about rivers and stones and gardens");
      const [long, short] = await Promise.all([
        spare.generate(a, { ...options, maxTokens: 48 }).collect(),
        spare.generate(chat("A short one"), { ...options, maxTokens: 1 }).collect(),
      ]);
      expect(long.sequence).not.toBe(short.sequence);
      const fresh = await spare.generate(chat("Something else entirely"), options).collect();
      expect(fresh.sequence).toBe(short.sequence);
      const next = await spare.generate(turn(a, " and the sea"), options).collect();
      expect(next.sequence).toBe(long.sequence);
      expect(next.reusedPromptTokens).toBe(a.length);
    } finally {
      spare.dispose();
    }
  });

  const system = "You are a careful assistant who answers briefly about rivers and stones. ";
  for (const unifiedKvCache of [false, true]) {
    it(`keeps a chat's history when a new chat shares its system prompt (${unifiedKvCache ? "unified" : "split"} cache)`, async () => {
      const spare = await model.createContext({ contextSize: 512, sequences: 2, threads: 1, unifiedKvCache });
      try {
        const first = chat(`${system}Tell me about the river.`);
        const a = await spare.generate(first, options).collect();
        const b = await spare.generate(chat(`${system}What is a garden?`), options).collect();
        expect(b.sequence).not.toBe(a.sequence);
        // The system prompt was copied in, not prefilled again.
        expect(b.reusedPromptTokens).toBeGreaterThanOrEqual(8);
        const next = await spare.generate(turn(first, " and the sea"), options).collect();
        expect(next.sequence).toBe(a.sequence);
        expect(next.reusedPromptTokens).toBe(first.length);
      } finally {
        spare.dispose();
      }
    });
  }

  it("regenerates, or reads an answer rendered differently, on the chat's own sequence", async () => {
    const spare = await model.createContext({ contextSize: 512, sequences: 2, threads: 1 });
    try {
      const prompt = chat(`${system}Tell me about the river.`);
      const a = await spare.generate(prompt, { ...options, maxTokens: 12 }).collect();
      // The same prompt again cuts only the last answer's cells: in place, though a sequence is empty.
      const again = await spare.generate(prompt, options).collect();
      expect(again.sequence).toBe(a.sequence);
      expect(again.reusedPromptTokens).toBe(prompt.length - 1);
      // A next turn whose template renders the answer differently from the tokens generated.
      const rendered = await spare.generate(turn(prompt, " The river runs. And then?"), options).collect();
      expect(rendered.sequence).toBe(a.sequence);
      expect(rendered.reusedPromptTokens).toBe(prompt.length);
      // Nothing was copied into the empty sequence.
      expect(spare.sequenceTokens(1 - a.sequence)).toHaveLength(0);
    } finally {
      spare.dispose();
    }
  });

  it("keeps a chat on its sequence when its template leaves the generation prompt out of the history", async () => {
    const spare = await model.createContext({ contextSize: 512, sequences: 2, threads: 1 });
    try {
      // As a <think> block: the prompt ends with a suffix the next turn's rendering of the history drops.
      const head = chat(`${system}Tell me about the river.`);
      const suffix = model.tokenize(" Reply:", { addSpecial: false });
      expect(suffix.length).toBeLessThan(8);
      const prompt = Int32Array.from([...head, ...suffix]);
      const a = await spare.generate(prompt, { ...options, maxTokens: 6 }).collect();
      const next = turn(head, ` Answer: ${a.text} User: and the sea? Assistant:`);
      const b = await spare.generate(next, options).collect();
      expect(b.sequence).toBe(a.sequence);
      // The head, and any tokens the suffix and the rendered answer happen to share.
      expect(b.reusedPromptTokens).toBeGreaterThanOrEqual(head.length);
      expect(spare.sequenceTokens(1 - a.sequence)).toHaveLength(0);
      // Another chat's first prompt, as short as the first one's, still goes to the empty sequence.
      const other = Int32Array.from([...chat(`${system}Tell me about the sea.`), ...suffix]);
      const c = await spare.generate(other, options).collect();
      expect(c.sequence).not.toBe(a.sequence);
    } finally {
      spare.dispose();
    }
  });

  it("with none empty, takes the sequence sharing the longest prefix before the least recently used", async () => {
    const spare = await model.createContext({ contextSize: 512, sequences: 2, threads: 1 });
    try {
      // Requests that share a long instruction (titles, summaries) beside a chat: each takes the last
      // one's sequence, not the chat's, which plain LRU would evict every time.
      const instruction = "Write a short title for the following conversation, in five words or fewer. ";
      const history = chat("A long conversation about rivers, stones and gardens, told slowly and with care");
      const a = await spare.generate(history, options).collect();
      const first = await spare.generate(chat(`${instruction}Rivers.`), options).collect();
      const second = await spare.generate(chat(`${instruction}Gardens.`), options).collect();
      expect(second.sequence).toBe(first.sequence);
      const next = await spare.generate(turn(history, " and then the rain came"), options).collect();
      expect(next.sequence).toBe(a.sequence);
      expect(next.reusedPromptTokens).toBe(history.length);
    } finally {
      spare.dispose();
    }
  });

  it("gives the same text whichever sequence it takes", async () => {
    const prompt = chat("The same words on any sequence");
    const single = await model.createContext({ contextSize: 512, sequences: 1, threads: 1 });
    try {
      const alone = await single.generate(prompt, options).collect();
      const here = await context.generate(prompt, options).collect();
      expect(here.text).toBe(alone.text);
    } finally {
      single.dispose();
    }
  });
});
