import cliProgress from "cli-progress";

/** A progress bar on stderr for a sampling run; a no-op when disabled. Always stop() it in a finally. */
export class SamplingProgress {
  readonly #bar: cliProgress.SingleBar | null;

  private constructor(bar: cliProgress.SingleBar | null) {
    this.#bar = bar;
  }

  /** A bar counting up to `total` samples, labelled with the strategy's name; null bar when `enabled` is false. */
  static start(
    enabled: boolean,
    total: number,
    label: string,
    stream: NodeJS.WritableStream = process.stderr,
  ) {
    if (!enabled) return new SamplingProgress(null);
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} {bar} {value}/{total} samples | passed: {passed}`,
        stream,
        // Non-TTY streams (CI logs, files) still get a line per update, so progress stays visible.
        noTTYOutput: true,
        hideCursor: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { passed: 0 });
    return new SamplingProgress(bar);
  }

  /** One more sample drawn and validated. */
  advance(passed: boolean): void {
    if (this.#bar === null) return;
    const payload = this.#bar as unknown as { payload?: { passed?: number } };
    this.#bar.increment(1, { passed: (payload.payload?.passed ?? 0) + (passed ? 1 : 0) });
  }

  stop(): void {
    this.#bar?.stop();
  }
}
