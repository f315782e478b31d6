// Every message of the command starts with `tessera: `: its own errors (here), commander's usage
// errors (main.ts rewrites commander's `error: ` prefix) and chat's per-turn errors alike.
import { GenerationAbortedError } from "../core/errors/generation-aborted-error.js";
import { type CliSurface, cliErrorMessage } from "./cli-error-message.js";
import { ModelWriteInterruptedError } from "./errors/model-write-interrupted-error.js";

export const cliMessagePrefix = "tessera: ";

/** Writes one `tessera: …` line on stderr. */
export function writeCliMessage(message: string): void {
  process.stderr.write(`${cliMessagePrefix}${message}\n`);
}

/** The exit status of a command stopped by Ctrl-C, as shells report it (128 + SIGINT). */
const interruptedExitCode = 130;

/** One clear line for users; the whole stack only with --verbose. Returns the exit code. */
export function reportCliError(error: unknown, verbose: boolean, surface: CliSurface = "command"): number {
  if (verbose && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
    if (error.cause) process.stderr.write(`caused by: ${String(error.cause)}\n`);
  } else {
    writeCliMessage(cliErrorMessage(error, surface));
  }
  const interrupted =
    GenerationAbortedError.isInstance(error) || ModelWriteInterruptedError.isInstance(error);
  return interrupted ? interruptedExitCode : 1;
}
