// The child processes a benchmark starts (servers, llama-bench, the C++ greedy runner). They would
// outlive this process when it ends first: an interrupt that reaches it alone (`kill <pid>`, a
// supervisor; Ctrl-C signals the whole process group), an uncaught error. An exit hook kills them; only
// synchronous work runs in an exit hook, hence SIGKILL rather than a graceful stop.
import type { ChildProcess } from "node:child_process";

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills `child` with this process if it has not exited by then. */
export function trackBenchChild(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", killBenchChildren);
}

/** Kills every tracked child that has not exited (synchronous: safe in exit and signal handlers). */
export function killBenchChildren(): void {
  for (const child of running) child.kill("SIGKILL");
}

/**
 * Runs `work` (the part of a benchmark that starts children) so that SIGINT or SIGTERM first kill those
 * children, then end this process by the same signal, as it would have without the handler (a shell
 * loop stops on it).
 */
export async function killBenchChildrenOnInterrupt<T>(work: () => Promise<T>): Promise<T> {
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = () => {
      killBenchChildren();
      process.off(signal, handler);
      process.kill(process.pid, signal);
    };
    process.once(signal, handler);
    return () => process.off(signal, handler);
  });
  try {
    return await work();
  } finally {
    for (const remove of handlers) remove();
  }
}
