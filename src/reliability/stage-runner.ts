// Starts a reliability stage in its own process (stage-child.ts) and reports its figures together
// with how the process ended.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ReliabilityHarnessError } from "./errors/reliability-harness-error.js";

export interface ProcessExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The end of what the process wrote to stderr (an assertion, a stack). */
  readonly stderrTail: string;
}

export interface StageOutcome<Figures> {
  /** null when the process died before printing them. */
  readonly figures: Figures | null;
  readonly exit: ProcessExit;
}

function stageChildScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, "stage-child.js");
  return existsSync(sibling) ? sibling : join(here, "..", "..", "dist", "reliability", "stage-child.js");
}

export function runStageInChild<Figures>(
  stage: "soak" | "stall" | "storm",
  options: object,
): Promise<StageOutcome<Figures>> {
  const script = stageChildScript();
  if (!existsSync(script)) {
    throw new ReliabilityHarnessError(`${script} does not exist`, "Run `npm run build` first.");
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, stage, JSON.stringify(options)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GGML_NO_BACKTRACE: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      let figures: Figures | null = null;
      try {
        figures = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Figures;
      } catch {
        figures = null;
      }
      resolve({ figures, exit: { exitCode, signal, stderrTail: stderr.trim() } });
    });
  });
}
