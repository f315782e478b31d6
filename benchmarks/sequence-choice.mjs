// How many prompt tokens the decode engine prefills when several conversations share a context's
// sequences (docs/native.md, "which free sequence a generation takes"): each workload runs on a context
// with 4 sequences, and for reference on one with more sequences than it has generations (nothing is
// ever evicted; empty ones come first there, so short prefixes a reused sequence would keep are prefilled)
// and with prefix reuse off (everything prefilled). The tiny model, 1 thread,
// greedy; figures are counts, not times (another CPU may still answer a token differently).
//   node benchmarks/sequence-choice.mjs        (needs `npm run build`)

import { resolveDefaultModel } from "../dist/gguf/default-model.js";
import { loadLlamaModel } from "../dist/index.js";

const model = await loadLlamaModel(await resolveDefaultModel());
const words = "river stone garden letter window morning table bridge cloud forest".split(" ");
const filler = (seed, count) =>
  Array.from({ length: count }, (_, i) => words[(seed * 7 + i * 3) % words.length]).join(" ");
const tokens = (text, special = true) => model.tokenize(text, { addSpecial: special });
const join = (...parts) => Int32Array.from(parts.flatMap((part) => [...part]));
const system = tokens(`You are a careful assistant. ${filler(1, 40)}`);

/**
 * Three chats taking turns (a 24-token answer each), with the prompts `after(turn, chat)` returns sent
 * after each turn, as a server's side requests (titles, follow-ups) are.
 */
function threeChats(after) {
  return async (generate) => {
    const chats = [0, 1, 2].map(() => system);
    for (let turn = 0; turn < 4; turn++) {
      for (let chat = 0; chat < 3; chat++) {
        const prompt = join(
          chats[chat],
          tokens(`\nUser: chat ${chat}, turn ${turn}: ${filler(chat * 31 + turn, 20)}\nAssistant:`, false),
        );
        chats[chat] = join(prompt, tokens(await generate(prompt, 24), false));
        for (const side of after(turn, chat)) await generate(side, 8);
      }
    }
  };
}

/** Each workload calls `generate(prompt, maxTokens)`, which answers with the generated text. */
const workloads = {
  "3 chats, a title request after each turn (4 turns)": threeChats((turn, chat) => [
    tokens(
      `### Task: a short title for this chat. ${filler(5, 60)}\n### Chat: ${filler(chat + turn * 3, 25)}\n### Title:`,
    ),
  ]),
  "3 chats, 3 side requests after each turn (4 turns)": threeChats((turn, chat) =>
    [0, 1, 2].map((side) => tokens(`Side request ${turn}.${chat}.${side}: ${filler(side, 8)}`)),
  ),
  "1 live chat beside 3 long idle ones, a side request after each turn (16 turns)": async (generate) => {
    for (let idle = 0; idle < 3; idle++) {
      await generate(
        join(system, tokens(`\nUser: old chat ${idle}: ${filler(idle + 50, 400)}\nAssistant:`, false)),
        8,
      );
    }
    let chat = system;
    for (let turn = 0; turn < 16; turn++) {
      const prompt = join(chat, tokens(`\nUser: turn ${turn}: ${filler(turn * 3, 20)}\nAssistant:`, false));
      const answer = await generate(prompt, 8);
      chat = join(prompt, tokens(answer, false));
      await generate(tokens(`### Task: suggest follow-up questions. ${filler(turn, 5)}\n### Answer:`), 8);
    }
  },
};

async function prefilled(workload, sequences, reusePrefix) {
  const context = await model.createContext({ contextSize: 2048, sequences, threads: 1 });
  try {
    const before = context.counters.promptTokensDecoded;
    await workload(async (prompt, maxTokens) => {
      const result = await context
        .generate(prompt, { temperature: 0, maxTokens, ignoreEos: true, reusePrefix })
        .collect();
      return result.text;
    });
    return context.counters.promptTokensDecoded - before;
  } finally {
    context.dispose();
  }
}

console.log(`tiny model, 1 thread, greedy; prompt tokens prefilled; ${new Date().toISOString()}`);
console.log("| workload | 4 sequences | 64 sequences, none evicted | 4 sequences, prefix reuse off |");
console.log("|---|---:|---:|---:|");
for (const [name, workload] of Object.entries(workloads)) {
  const shared = await prefilled(workload, 4, true);
  const floor = await prefilled(workload, 64, true);
  const ceiling = await prefilled(workload, 4, false);
  console.log(`| ${name} | ${shared} | ${floor} | ${ceiling} |`);
}
model.dispose();
