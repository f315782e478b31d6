// Library errors speak in API options (contextSize, error.partialText); a CLI user has flags and, in
// chat, slash commands. This turns the errors a command can meet into the words of the command line,
// keeping the library's numbers. Anything it does not know passes through unchanged.

import { ModelLoadError } from "../backends/llamacpp/errors/model-load-error.js";
import { ContextOverflowError } from "../core/errors/context-overflow-error.js";
import { GenerationAbortedError } from "../core/errors/generation-aborted-error.js";

/** Where the error surfaced: `chat` has /reset and --window on top of the flags every command has. */
export type CliSurface = "command" | "chat";

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  port?: number;
  address?: string;
}

function contextOverflowMessage(error: ContextOverflowError, surface: CliSurface): string {
  // A prompt refused from its byte length alone was not tokenized: its count is a lower bound.
  const atLeast = error.promptTokensAtLeast ? "at least " : "";
  const needed =
    error.maxTokens === undefined
      ? `the prompt has ${atLeast}${error.promptTokens} tokens`
      : `the prompt has ${atLeast}${error.promptTokens} tokens and --max-tokens is ${error.maxTokens} (${atLeast}${error.promptTokens + error.maxTokens} in all)`;
  // Lowering the output is offered only when it can help, with how much fits when that is known, as the
  // library and HTTP do.
  const room = error.outputRoom;
  const lower =
    room !== null
      ? `, lower --max-tokens to at most ${room}`
      : error.outputMayHelp
        ? ", lower --max-tokens"
        : "";
  const fixes =
    surface === "chat"
      ? `Shorten your message, raise --context-size${lower}, keep fewer turns with --window, or type /reset to clear the history`
      : `Shorten the prompt${lower}, or raise --context-size`;
  return `Context overflow: ${needed}, but the context holds ${error.contextSize} tokens. ${fixes}. Nothing was decoded.`;
}

function modelLoadMessage(error: ModelLoadError): string {
  // The library's advice names API calls; keep its diagnosis and point to the command that reads a GGUF.
  const advice = error.message.indexOf(". Check that the file");
  const diagnosis = advice === -1 ? error.message : error.message.slice(0, advice);
  return (
    `${diagnosis}. Check that --model names a complete GGUF model of an architecture llama.cpp supports; ` +
    `\`tessera models info ${error.path}\` shows what is wrong with a broken file.`
  );
}

function systemErrorMessage(error: SystemError): string | undefined {
  if (error.syscall !== "listen") return undefined;
  const where = `port ${error.port ?? "?"} on ${error.address ?? "?"}`;
  if (error.code === "EADDRINUSE") {
    return `Cannot listen on ${where}: another process uses it. Stop that process or pass another --port (0 picks a free one).`;
  }
  if (error.code === "EACCES") {
    return `Cannot listen on ${where}: permission denied (ports below 1024 need privileges). Pass another --port.`;
  }
  if (error.code === "EADDRNOTAVAIL") {
    return `Cannot listen on ${where}: this machine has no such address. Pass another --host.`;
  }
  return undefined;
}

/** The one-line message a CLI user sees for `error`. */
export function cliErrorMessage(error: unknown, surface: CliSurface = "command"): string {
  if (ContextOverflowError.isInstance(error)) return contextOverflowMessage(error, surface);
  if (GenerationAbortedError.isInstance(error)) {
    const kept = surface === "chat" ? "; this turn is left out of the history" : "";
    return `Interrupted after ${error.partialText.length} characters of output${kept}.`;
  }
  if (ModelLoadError.isInstance(error)) return modelLoadMessage(error);
  if (error instanceof Error) {
    const message = systemErrorMessage(error as SystemError) ?? error.message;
    return message.split("\n")[0] ?? "";
  }
  return String(error).split("\n")[0] ?? "";
}
