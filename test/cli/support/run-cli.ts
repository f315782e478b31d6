// Runs the built command as a user would: `node dist/cli/main.js …` (run `npm run build` first).
import { spawn } from "node:child_process";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["dist/cli/main.js", ...args], {
      stdio: ["pipe", "pipe", "pipe"],
      // One thread: this machine's two cores are shared with other test processes.
      env: { ...process.env, NO_COLOR: "1", ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `tessera ${args.join(" ")} did not finish in ${options.timeoutMs ?? 60_000} ms:\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Lines of text, without the empty last one. */
export function linesOf(text: string): string[] {
  return text.split("\n").filter((line, index, all) => !(index === all.length - 1 && line === ""));
}

/**
 * `stderr` without the notice every command prints once for a random-weight preset (the tiny model
 * the tests use is one), so a test can assert its own lines.
 */
export function withoutNotices(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line) => !line.startsWith("tessera: note: "))
    .join("\n");
}
