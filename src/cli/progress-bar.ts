// A cli-progress bar on stderr that only appears once the work has lasted `delayMs` (default a second, so
// quick work prints nothing) and never when stderr is not a terminal or --json output is being written.
// Every bar of the CLI goes through it; stop() clears the bar and a later update() starts a fresh one.
import { SingleBar } from "cli-progress";

export interface DelayedProgressBar {
  update(value: number, total: number, payload?: Record<string, string>): void;
  stop(): void;
}

export function delayedProgressBar(
  format: string,
  options: { enabled?: boolean; delayMs?: number } = {},
): DelayedProgressBar {
  const enabled = (options.enabled ?? true) && process.stderr.isTTY === true;
  const startedAt = performance.now();
  const delayMs = options.delayMs ?? 1000;
  let bar: SingleBar | null = null;
  return {
    update(value, total, payload = {}) {
      if (!enabled) return;
      if (bar === null) {
        if (performance.now() - startedAt < delayMs) return;
        bar = new SingleBar({ stream: process.stderr, format, hideCursor: true, clearOnComplete: true });
        bar.start(total, value, payload);
        return;
      }
      bar.setTotal(total);
      bar.update(value, payload);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
