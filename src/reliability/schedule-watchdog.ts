// Inside a schedule-fuzz child: every awaited event that must come (a pulled token, the end of a
// stream after its stop, createContext settling, a terminated worker's exit) is raced against a
// deadline. A miss is a hang: the child reports it and kills itself, since a hung decode thread
// could also hang a normal exit.
import { writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export const dueEventLimitMs = 5000;
/** How long a generation may wait for a free sequence before its first token counts as overdue. */
export const queuedLimitMs = 120_000;
const abortProbeMs = 1000;

export class ScheduleHangError extends Error {
  constructor(readonly event: string) {
    super(`no ${event}`);
    this.name = "ScheduleHangError";
  }
}

export type HangReporter = (event: string) => void;

/** Reports a hang on stdout (synchronously) and ends the process by SIGKILL. */
export function reportHangAndDie(index: number, event: string): never {
  writeSync(1, `${JSON.stringify({ type: "done", index, outcome: "hang", detail: `no ${event}` })}\n`);
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
   * only for starting a process or a worker, which a busy machine can delay). For a token, `abort`
   * stops the generation first: if the pull then settles, its decode thread was alive but asleep (a
   * lost wake-up) rather than stuck, and the report says so.
   */
  async due<T>(
    event: string,
    promise: Promise<T>,
    limitMs = dueEventLimitMs,
    abort?: () => void,
    queued?: () => boolean,
  ): Promise<T> {
    this.dueEvents++;
    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    const deadline = new Promise<never>((_, reject) => {
      const onTimer = async () => {
        // A token is due only once its generation holds a sequence: while it waits behind others (more
        // streams than the context has sequences), the clock starts again, up to queuedLimitMs in all.
        if (queued?.() === true && Date.now() - started < queuedLimitMs) {
          timer = setTimeout(onTimer, limitMs);
          return;
        }
        let what = `${event} within ${limitMs} ms`;
        if (abort !== undefined) {
          abort();
          const settled = await Promise.race([
            promise.then(
              () => true,
              () => true,
            ),
            sleep(abortProbeMs).then(() => false),
          ]);
          what += settled
            ? "; abort() then ended it (the decode thread was alive but asleep: a missed wake-up)"
            : `; abort() did not end it within ${abortProbeMs} ms either (the decode thread is stuck, or a dispose forgot the pending pull)`;
        }
        this.#onHang(what);
        reject(new ScheduleHangError(what));
      };
      timer = setTimeout(onTimer, limitMs);
    });
    try {
      return await Promise.race([promise, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
