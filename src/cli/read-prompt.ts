// The prompt of a command: its words joined, or all of stdin when none were given and stdin is piped.
import { text } from "node:stream/consumers";
import { MissingPromptError } from "./errors/missing-prompt-error.js";

export async function readPrompt(words: ReadonlyArray<string>): Promise<string> {
  const joined = words.join(" ");
  if (joined.trim() !== "") return joined;
  if (process.stdin.isTTY) throw new MissingPromptError();
  const piped = (await text(process.stdin)).trim();
  if (piped === "") throw new MissingPromptError();
  return piped;
}
