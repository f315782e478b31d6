// `tessera chat`: an interactive, streaming chat. The history lives in a ChatContext, so every answer
// sees the conversation so far. Piped stdin works too: one user turn per line (handy for scripts/tests).
import { createInterface } from "node:readline";
import type { Command } from "commander";
import type { Context } from "../../core/context.js";
import { Message } from "../../messages/components/message.js";
import { ChatContext } from "../../stdlib/contexts/chat-context.js";
import { addModelFlags, type ModelFlags, modelOptionsFromFlags } from "../model-flags.js";
import { integerArgument } from "../number-arguments.js";
import { openBackend } from "../open-model.js";
import { reportCliError } from "../report-error.js";

interface ChatFlags extends ModelFlags {
  window?: number;
}

const help = "Commands: /reset clears the history, /exit (or Ctrl-D) leaves.";

async function chat(flags: ChatFlags): Promise<void> {
  const interactive = process.stdin.isTTY === true;
  const backend = await openBackend(flags);
  const newContext = () => new ChatContext({ windowSize: flags.window ?? null });
  let context: Context = newContext();
  const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
  // Ctrl-C during an answer stops that answer; at the prompt it leaves.
  let current: AbortController | null = null;
  lines.on("SIGINT", () => {
    if (current !== null) current.abort(new Error("interrupted"));
    else lines.close();
  });
  if (interactive) process.stdout.write(`Chatting with ${backend.modelId}. ${help}\n`);
  const prompt = () => {
    if (interactive) lines.prompt();
  };
  lines.setPrompt("\n> ");
  try {
    prompt();
    // The async iterator buffers lines that arrive while an answer streams (piped stdin arrives at once).
    for await (const line of lines) {
      const text = line.trim();
      if (text === "") {
        prompt();
        continue;
      }
      if (text === "/exit" || text === "/quit") break;
      if (text === "/reset") {
        context = newContext();
        process.stdout.write("(history cleared)\n");
        prompt();
        continue;
      }
      if (text.startsWith("/")) {
        process.stdout.write(`Unknown command ${text}. ${help}\n`);
        prompt();
        continue;
      }
      current = new AbortController();
      try {
        const result = await backend.generateFromContext(new Message("user", text), context, {
          modelOptions: modelOptionsFromFlags(flags),
          signal: current.signal,
        });
        for await (const delta of result.thunk) process.stdout.write(delta);
        await result.thunk.avalue();
        process.stdout.write("\n");
        context = result.context;
      } catch (error) {
        // A failed turn (too long for the context, interrupted) is reported; the chat goes on without it.
        process.stdout.write("\n");
        const code = reportCliError(error, false, "chat");
        if (!interactive) process.exitCode = code;
      } finally {
        current = null;
      }
      prompt();
    }
  } finally {
    lines.close();
    await backend.dispose();
  }
}

export function registerChatCommand(program: Command): void {
  const command = program
    .command("chat")
    .description("chat with a model in the terminal, streaming, with the history kept");
  addModelFlags(command, { maxTokens: 256 })
    .option("--window <turns>", "send only the last this-many messages of the history", integerArgument(1))
    .addHelpText(
      "after",
      `
${help}

Examples:
  $ tessera chat
  $ tessera chat --model llama-3.2-1b:q4_0 --temperature 0.7 --system "You are terse."
  $ printf 'Hello\\nAnd again?\\n' | tessera chat -n 16     # one turn per line, for scripts`,
    )
    .action((flags: ChatFlags) => chat(flags));
}
