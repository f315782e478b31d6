// Inside a schedule-fuzz child: every awaited event that must come (a pulled token, the end of a
// stream after its stop, createContext settling, a terminated worker's exit) is raced against a
// deadline. A miss is a hang: the child reports it and kills itself, since a hung decode thread
// could also hang a normal exit.
import { writeSync } from "node:fs";

export const dueEventLimitMs = 5000;

export class ScheduleHangError extends Error {
  constructor(readonly event: string) {
    super(`no ${event} within ${dueEventLimitMs} ms`);
    this.name = "ScheduleHangError";
  }
}

export type HangReporter = (event: string) => void;

/** Reports a hang on stdout (synchronously) and ends the process by SIGKILL. */
export function reportHangAndDie(index: number, event: string): never {
  writeSync(
    1,
    `${JSON.stringify({ type: "done", index, outcome: "hang", detail: `no ${event} within ${dueEventLimitMs} ms` })}\n`,
  );
  process.kill(process.pid, "SIGKILL");
  throw new ScheduleHangError(event);
}

export class ScheduleWatchdog {
  readonly #onHang: HangReporter;
  /** Events awaited so far in this case (a figure of how much was checked). */
  dueEvents = 0;

  constructor(onHang: HangReporter) {
    this.#onHang = onHang;
  }

  /**
   * Awaits `promise`, or reports a hang of `event` when it does not settle within the limit (longer
   * only for starting a process or a worker, which a busy machine can delay).
   */
  async due<T>(event: string, promise: Promise<T>, limitMs = dueEventLimitMs): Promise<T> {
    this.dueEvents++;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#onHang(event);
        reject(new ScheduleHangError(event));
      }, limitMs);
    });
    try {
      return await Promise.race([promise, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
