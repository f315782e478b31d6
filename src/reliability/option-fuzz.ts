// The option fuzzer: random combinations of every loadLlamaModel, createContext and generate option,
// inside and just outside their documented ranges, each case in a child process. Every case must end
// in working objects or a typed error; a crash (llama.cpp's GGML_ASSERT aborts the process), a hang
// or an untyped error is a finding, reported with the case number that replays it.
import { buildOptionFuzzCase, describeOptionFuzzCase } from "./option-fuzz-case.js";
import { OptionFuzzHarness } from "./option-fuzz-harness.js";

export interface OptionFuzzOptions {
  readonly cases: number;
  readonly runSeed?: number;
  /** First case number (to replay one case: firstCase N, cases 1). Default 0. */
  readonly firstCase?: number;
  /** A case without a reply in this time is a hang. Default 30 s. */
  readonly timeoutMs?: number;
  readonly childScript?: string;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface OptionFuzzFinding {
  readonly index: number;
  readonly outcome: "crash" | "hang" | "untyped-error";
  /** The signal or exit code, or the error's message. */
  readonly detail: string;
  readonly description: string;
}

export interface OptionFuzzFigures {
  readonly cases: number;
  readonly runSeed: number;
  readonly ok: number;
  readonly typedErrors: number;
  readonly untypedErrors: number;
  readonly crashes: number;
  readonly hangs: number;
  /** Typed errors by class name (a case may throw several). */
  readonly errorNames: Readonly<Record<string, number>>;
  /** The number of the first case that crashed, or null. */
  readonly firstCrashCase: number | null;
  readonly findings: readonly OptionFuzzFinding[];
  readonly childrenStarted: number;
  /** The highest peak resident memory of a child, and the case during which a child's peak rose most. */
  readonly peakChildRssBytes: number;
  readonly largestRiseCase: { readonly index: number; readonly bytes: number } | null;
  readonly durationMs: number;
}

const findingsKept = 50;

export async function runOptionFuzz(options: OptionFuzzOptions): Promise<OptionFuzzFigures> {
  const runSeed = options.runSeed ?? 1;
  const firstCase = options.firstCase ?? 0;
  const started = performance.now();
  const harness = new OptionFuzzHarness(runSeed, options.timeoutMs ?? 30_000, options.childScript);
  const counts = { ok: 0, typedErrors: 0, untypedErrors: 0, crashes: 0, hangs: 0 };
  const errorNames: Record<string, number> = {};
  const findings: OptionFuzzFinding[] = [];
  let firstCrashCase: number | null = null;
  let peakChildRssBytes = 0;
  let previousPeak = 0;
  let largestRiseCase: OptionFuzzFigures["largestRiseCase"] = null;
  try {
    const vocabSize = await harness.vocabSize();
    for (let done = 0; done < options.cases; done++) {
      const index = firstCase + done;
      const result = await harness.run(index);
      const describe = () => describeOptionFuzzCase(buildOptionFuzzCase(runSeed, index, vocabSize));
      if (!("errors" in result)) {
        previousPeak = 0; // the next case runs in a fresh child
        if (result.outcome === "crash") counts.crashes++;
        else counts.hangs++;
        if (result.outcome === "crash") firstCrashCase ??= index;
        const ending =
          result.outcome === "crash" ? `signal ${result.signal}, exit code ${result.exitCode}` : "no reply";
        const assertion = lastLines(result.stderrTail);
        findings.push({
          index,
          outcome: result.outcome,
          detail: `${ending}${assertion ? `: ${assertion}` : ""}`,
          description: describe(),
        });
      } else {
        for (const name of result.errors) errorNames[name] = (errorNames[name] ?? 0) + 1;
        peakChildRssBytes = Math.max(peakChildRssBytes, result.peakRssBytes);
        const rise = result.peakRssBytes - previousPeak;
        if (previousPeak > 0 && rise > (largestRiseCase?.bytes ?? 0))
          largestRiseCase = { index, bytes: rise };
        previousPeak = result.peakRssBytes;
        if (result.outcome === "ok") counts.ok++;
        else if (result.outcome === "typed-error") counts.typedErrors++;
        else {
          counts.untypedErrors++;
          findings.push({
            index,
            outcome: "untyped-error",
            detail: `${result.errors.join(", ")}: ${result.message ?? ""}`,
            description: describe(),
          });
        }
      }
      options.onProgress?.(done + 1, options.cases);
    }
  } finally {
    await harness.close();
  }
  return {
    cases: options.cases,
    runSeed,
    ...counts,
    errorNames,
    firstCrashCase,
    findings: findings.slice(0, findingsKept),
    childrenStarted: harness.childrenStarted,
    peakChildRssBytes,
    largestRiseCase,
    durationMs: performance.now() - started,
  };
}

/** The assertion line llama.cpp printed (or the last line), without the backtrace noise. */
function lastLines(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const assertion = lines.findLast((line) =>
    /GGML_ASSERT|GGML_ABORT|terminate|Segmentation|error/i.test(line),
  );
  return (assertion ?? lines.at(-1) ?? "").slice(0, 300);
}
