// One clear line for users; the whole stack only with --verbose.
export function reportCliError(error: unknown, verbose: boolean): number {
  if (verbose && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
    if (error.cause) process.stderr.write(`caused by: ${String(error.cause)}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tessera: ${message.split("\n")[0]}\n`);
  }
  return 1;
}
