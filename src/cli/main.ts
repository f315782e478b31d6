#!/usr/bin/env node
// The `tessera` command. Each subcommand lives in its own file under ./commands and registers itself
// here; errors are printed as one clear line unless --verbose is given.
import { Command } from "commander";
import { registerCommands } from "./commands/index.js";
import { cliMessagePrefix, reportCliError } from "./report-error.js";

const program = new Command()
  .name("tessera")
  .description("Generative programming on local GGUF models")
  .option("--verbose", "print stack traces and llama.cpp logs")
  // A usage error is one line, as every other error; the usage is one --help away. Subcommands inherit it.
  .showHelpAfterError(false)
  // Commander's usage errors start with "error: "; ours with "tessera: ". One style: ours. Set before the
  // subcommands are added, which inherit it.
  .configureOutput({
    outputError: (text, write) => write(text.replace(/^error: /, cliMessagePrefix)),
  });

registerCommands(program);

// `tessera models info --json | head` closes our stdout early: that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

program.parseAsync(process.argv).catch((error: unknown) => {
  process.exitCode = reportCliError(error, program.opts<{ verbose?: boolean }>().verbose === true);
});
