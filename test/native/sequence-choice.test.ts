// Which free sequence a generation takes decides which cached history survives it. A prompt that keeps
// the whole prompt of a sequence's last generation (its next turn, a regenerate, an answer rendered
// differently) takes that sequence; any other takes an empty one, then the one it would cut the fewest
// cells of (the least recently used among equals), and copies a shared prefix (a system prompt) in from
// another sequence. Before, a fresh prompt sharing only
// BOS, or a system prompt, with a chat took that chat's sequence while another sat empty, and the chat's
// next turn prefilled it all again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext, LlamaContextOptions } from "../../src/backends/llamacpp/llama-context.js";
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

  /** A fresh context (512 cells per sequence, 1 thread) for one test, disposed whatever happens. */
  async function withContext(
    settings: Pick<LlamaContextOptions, "sequences" | "unifiedKvCache">,
    test: (context: LlamaContext) => Promise<void>,
  ): Promise<void> {
    const fresh = await model.createContext({ contextSize: 512, threads: 1, ...settings });
    try {
      await test(fresh);
    } finally {
      fresh.dispose();
    }
  }

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

  it("with none empty, cuts the sequence that loses the fewest cells, keeping a longer history", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
      const long = chat("A long conversation about rivers, stones and gardens, told slowly and with care");
      const a = await spare.generate(long, { ...options, maxTokens: 24 }).collect();
      const b = await spare.generate(chat("Hi"), options).collect();
      expect(b.sequence).not.toBe(a.sequence);
      const fresh = await spare.generate(chat("Something else entirely"), options).collect();
      expect(fresh.sequence).toBe(b.sequence);
      const next = await spare.generate(turn(long, " and then the rain came"), options).collect();
      expect(next.sequence).toBe(a.sequence);
      expect(next.reusedPromptTokens).toBe(long.length);
    });
  });

  it("keeps three chats' histories on four sequences with side requests after every turn", async () => {
    await withContext({ sequences: 4 }, async (spare) => {
      // Three users, each turn followed by three short side requests (a title, tags, follow-ups): every
      // turn finds its chat's cells. Counting a chat as abandoned after 2 × sequences generations (tried)
      // cut them here on nearly every turn, as plain LRU does.
      const prompts = [0, 1, 2].map((user) => chat(`User ${user} starts a chat about rivers and stones.`));
      const answers = ["", "", ""];
      for (let round = 0; round < 4; round++) {
        for (let user = 0; user < 3; user++) {
          const before = prompts[user]!.length;
          if (round > 0) prompts[user] = turn(prompts[user]!, ` ${answers[user]} And then ${round}?`);
          const result = await spare.generate(prompts[user]!, options).collect();
          answers[user] = result.text;
          if (round > 0) expect(result.reusedPromptTokens).toBe(before);
          for (let side = 0; side < 3; side++) {
            await spare.generate(chat(`Side request ${round}.${user}.${side}`), options).collect();
          }
        }
      }
    });
  });

  it("among equal losses, takes the least recently used, counted from a generation's end", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
      // A starts first and ends last; B starts second and ends first. Both end up holding the same number
      // of cells (A: a 20-token prompt and 48 tokens; B: a 67-token prompt and 1), and a fresh prompt
      // shares only BOS with either: equal losses, and B's sequence is the older by its generation's end.
      const bos = model.metadata.bos;
      const tokens = (from: number, count: number) =>
        Int32Array.from([bos, ...Array.from({ length: count - 1 }, (_, index) => from + index)]);
      const [long, short] = await Promise.all([
        spare.generate(tokens(1000, 20), { ...options, maxTokens: 48 }).collect(),
        spare.generate(tokens(3000, 67), { ...options, maxTokens: 1 }).collect(),
      ]);
      expect(long.sequence).not.toBe(short.sequence);
      expect(spare.sequenceTokens(long.sequence).length).toBe(spare.sequenceTokens(short.sequence).length);
      const fresh = await spare.generate(tokens(6000, 5), options).collect();
      expect(fresh.sequence).toBe(short.sequence);
    });
  });

  const system = "You are a careful assistant who answers briefly about rivers and stones. ";
  for (const unifiedKvCache of [false, true]) {
    it(`keeps a chat's history when a new chat shares its system prompt (${unifiedKvCache ? "unified" : "split"} cache)`, async () => {
      await withContext({ sequences: 2, unifiedKvCache }, async (spare) => {
        const first = chat(`${system}Tell me about the river.`);
        const a = await spare.generate(first, options).collect();
        const b = await spare.generate(chat(`${system}What is a garden?`), options).collect();
        expect(b.sequence).not.toBe(a.sequence);
        // The system prompt was copied in, not prefilled again.
        expect(b.reusedPromptTokens).toBeGreaterThanOrEqual(8);
        const next = await spare.generate(turn(first, " and the sea"), options).collect();
        expect(next.sequence).toBe(a.sequence);
        expect(next.reusedPromptTokens).toBe(first.length);
      });
    });
  }

  it("regenerates, or reads an answer rendered differently, on the chat's own sequence", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
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
    });
  });

  it("moves a turn whose template dropped the generation prompt to an empty sequence, copying its history", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
      // As a <think> block: the prompt ends with a suffix the next turn's rendering of the history drops,
      // so the next turn does not keep the last prompt whole. It reads like another chat sharing the
      // system prompt (below), so it is not given the sequence; it still reuses its history, copied.
      const head = chat(`${system}Tell me about the river.`);
      const suffix = model.tokenize(" Reply:", { addSpecial: false });
      const a = await spare
        .generate(Int32Array.from([...head, ...suffix]), { ...options, maxTokens: 6 })
        .collect();
      const next = turn(head, ` Answer: ${a.text} User: and the sea? Assistant:`);
      const b = await spare.generate(next, options).collect();
      expect(b.sequence).not.toBe(a.sequence);
      expect(b.reusedPromptTokens).toBeGreaterThanOrEqual(head.length);
    });
  });

  it("gives a new chat with a long first message an empty sequence, not a short chat's", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
      // A's cache (its prompt and a 1-token answer) is shorter than B's first prompt, and B shares all
      // but a few tokens of A's prompt: still another conversation.
      const first = chat(`${system}Hi.`);
      const a = await spare.generate(first, { ...options, maxTokens: 1 }).collect();
      const long = "Please tell me everything you know about rivers, stones, gardens and the sea, at length.";
      const b = await spare.generate(chat(`${system}${long}`), options).collect();
      expect(b.sequence).not.toBe(a.sequence);
      const next = await spare.generate(turn(first, " and the sea"), options).collect();
      expect(next.sequence).toBe(a.sequence);
      expect(next.reusedPromptTokens).toBe(first.length);
    });
  });

  it("with none empty, lets two chats that open alike cut an idle chat's cells, not each other's", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
      const idle = await spare.generate(chat("An idle chat about the weather"), options).collect();
      const opening = "Explain the difference between ";
      const aPrompt = chat(`${system}${opening}rivers and streams, with examples from many places`);
      const a = await spare.generate(aPrompt, { ...options, maxTokens: 32 }).collect();
      expect(a.sequence).not.toBe(idle.sequence);
      // C shares the system prompt and the opening with A, less than half of A's cells (its prompt and
      // answer): another conversation, so it takes the least recently used sequence, the idle chat's.
      const c = await spare.generate(chat(`${system}${opening}stones`), options).collect();
      expect(c.sequence).toBe(idle.sequence);
      const next = await spare.generate(turn(aPrompt, " and lakes?"), options).collect();
      expect(next.sequence).toBe(a.sequence);
      expect(next.reusedPromptTokens).toBe(aPrompt.length);
    });
  });

  it("with none empty, gives a repeated long instruction the last one's sequence, not a chat's", async () => {
    await withContext({ sequences: 2 }, async (spare) => {
      // Requests that share a long instruction (titles, summaries) beside a chat: each takes the last
      // one's sequence, not the chat's, which plain LRU would evict every time.
      const instruction = "Write a short title for the following conversation, in five words or fewer. ";
      const history = chat("A long conversation about rivers, stones and gardens, told slowly and with care");
      const a = await spare.generate(history, { ...options, maxTokens: 64 }).collect();
      // A long answer: the instruction is less than half of that request's cells.
      const first = await spare
        .generate(chat(`${instruction}Rivers.`), { ...options, maxTokens: 40 })
        .collect();
      const second = await spare.generate(chat(`${instruction}Gardens.`), options).collect();
      expect(second.sequence).toBe(first.sequence);
      const next = await spare.generate(turn(history, " and then the rain came"), options).collect();
      expect(next.sequence).toBe(a.sequence);
      expect(next.reusedPromptTokens).toBe(history.length);
    });
  });

  it("gives the same text whichever sequence it takes", async () => {
    const prompt = chat("The same words on any sequence");
    await withContext({ sequences: 1 }, async (single) => {
      const alone = await single.generate(prompt, options).collect();
      const here = await context.generate(prompt, options).collect();
      expect(here.text).toBe(alone.text);
    });
  });
});
