// What every `tessera bench` subcommand does with its result: name the command line that made it, write
// <name>.json, .md and .svg, and print either the JSON (--json, for scripts) or the table and the paths.
import { relative, resolve } from "node:path";
import { redactCredentialsInArgument } from "../bench/redact-url-credentials.js";
import { writeResults } from "../bench/write-results.js";
import { prepareOutputDirectory, reportCreatedFolders } from "./output-folder.js";

/**
 * Where `tessera bench …` writes unless --out says otherwise: a folder no clone tracks, so a run from a
 * checkout never overwrites the committed results. Those change only with an explicit
 * `--out benchmarks/results`.
 */
export const defaultBenchOut = "tessera-bench";

/**
 * The command line as typed, so a result file says how to reproduce it. Node's own flags
 * (`node --single-threaded-gc …/main.js bench ttfb`) and NODE_OPTIONS change what a run measures, so with
 * any flag the line names node, the flags and the script instead of `tessera`, and NODE_OPTIONS goes in
 * front. Words with spaces or shell characters are quoted, so the line can be pasted into a shell.
 */
export function benchCommandLine(
  argv: readonly string[] = process.argv,
  execArgv: readonly string[] = process.execArgv,
  cwd: string = process.cwd(),
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string {
  // A --remote URL's password must not reach the results (or the printed Command: line).
  const args = argv.slice(2).map((word) => shellWord(redactCredentialsInArgument(word)));
  const environment =
    nodeOptions === undefined || nodeOptions.trim() === "" ? [] : [`NODE_OPTIONS=${shellWord(nodeOptions)}`];
  const command =
    execArgv.length === 0 || argv[1] === undefined
      ? ["tessera", ...args]
      : ["node", ...execArgv.map(shellWord), shellWord(relative(cwd, argv[1]) || argv[1]), ...args];
  return [...environment, ...command].join(" ");
}

/** A word as a POSIX shell reads it back: as is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Checks (and makes) the --out folder before any benchmark work, so a bad path fails at once. */
export async function prepareBenchOutput(out: string): Promise<void> {
  reportCreatedFolders(await prepareOutputDirectory(out, "--out"), "--out");
}

export interface BenchOutput {
  /** The folder of --out, relative to the working directory. */
  out: string;
  /** The file name without extension: ttfb, throughput, strategies. */
  name: string;
  result: unknown;
  markdown: string;
  chart: string | null;
  /** True for --json: print the result JSON instead of the table. */
  json: boolean;
}

export async function publishBenchResult(output: BenchOutput): Promise<void> {
  const written = await writeResults(
    resolve(output.out),
    output.name,
    output.result,
    output.markdown,
    output.chart,
  );
  if (output.json) process.stdout.write(`${JSON.stringify(output.result)}\n`);
  else
    process.stdout.write(
      `${output.markdown}\nWrote ${written.json}, ${written.markdown} and ${written.svg}\n`,
    );
}
