// The option fuzzer's lines in `tessera reliability` and its target: no crash, no hang, no untyped
// error in any case.
import type { OptionFuzzFigures } from "./option-fuzz.js";

export function optionFuzzPassed(figures: OptionFuzzFigures | null | undefined): boolean {
  return (
    figures === null ||
    figures === undefined ||
    (figures.crashes === 0 && figures.hangs === 0 && figures.untypedErrors === 0)
  );
}

export function formatOptionFuzz(figures: OptionFuzzFigures): string[] {
  const lines = [
    `option fuzz: ${figures.cases} cases (seed ${figures.runSeed}) in ${(figures.durationMs / 1000).toFixed(1)} s: ` +
      `${figures.ok} ok, ${figures.typedErrors} typed errors, ${figures.untypedErrors} untyped, ` +
      `${figures.crashes} crashes, ${figures.hangs} hangs; errors ${JSON.stringify(figures.errorNames)}`,
    `  children started ${figures.childrenStarted}; peak child RSS ${(figures.peakChildRssBytes / 1048576).toFixed(0)} MiB` +
      (figures.largestRiseCase === null
        ? ""
        : ` (largest rise ${(figures.largestRiseCase.bytes / 1048576).toFixed(0)} MiB in case ${figures.largestRiseCase.index})`),
  ];
  for (const finding of figures.findings.slice(0, 20)) {
    lines.push(
      `  ! case ${finding.index} ${finding.outcome}: ${finding.detail} (replay: --options 1 --option-case ${finding.index}; ${finding.description})`,
    );
  }
  return lines;
}
