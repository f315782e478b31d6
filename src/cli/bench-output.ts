// What every `tessera bench` subcommand does with its result: name the command line that made it, write
// <name>.json, .md and .svg, and print either the JSON (--json, for scripts) or the table and the paths.
import { resolve } from "node:path";
import { writeResults } from "../bench/write-results.js";
import { prepareOutputDirectory, reportCreatedFolders } from "./output-folder.js";

/**
 * Where `tessera bench …` writes unless --out says otherwise: a folder no clone tracks, so a run from a
 * checkout never overwrites the committed results. Those change only with an explicit
 * `--out benchmarks/results`.
 */
export const defaultBenchOut = "tessera-bench";

/** The command line as typed, so a result file says how to reproduce it. */
export function benchCommandLine(): string {
  return `tessera ${process.argv.slice(2).join(" ")}`;
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
