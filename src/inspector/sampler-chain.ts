// The sampler chain a generation ran, in words and in llama.cpp's order, for the inspector's legend:
// "processed" means after exactly these steps. Samplers that were not asked for are not in the chain
// (the local backend adds none by default), so with none of them processed equals raw.
import type { ModelOptions } from "../core/model-options.js";

/** Below this temperature the local backend selects greedily (native-limits.ts says why). */
const greedyBelow = 1e-3;

export function describeSamplerChain(options: ModelOptions): string {
  const steps: string[] = [];
  const penalties = [
    options.repeatPenalty !== undefined && options.repeatPenalty !== 1 && `repeat ${options.repeatPenalty}`,
    options.frequencyPenalty ? `frequency ${options.frequencyPenalty}` : false,
    options.presencePenalty ? `presence ${options.presencePenalty}` : false,
  ].filter((text): text is string => typeof text === "string");
  if (penalties.length > 0) steps.push(`penalties (${penalties.join(", ")})`);
  if (options.topK !== undefined && options.topK > 0) steps.push(`top-k ${options.topK}`);
  if (options.typicalP !== undefined && options.typicalP < 1) steps.push(`typical-p ${options.typicalP}`);
  if (options.topP !== undefined && options.topP < 1) steps.push(`top-p ${options.topP}`);
  if (options.minP !== undefined && options.minP > 0) steps.push(`min-p ${options.minP}`);
  const greedy = options.temperature !== undefined && options.temperature < greedyBelow;
  if (options.temperature !== undefined && !greedy) steps.push(`temperature ${options.temperature}`);
  const selector = greedy
    ? "greedy (the most likely token)"
    : `random draw${options.seed === undefined ? "" : ` (seed ${options.seed})`}`;
  if (steps.length === 0) return `no processing samplers (processed = raw) → ${selector}`;
  return `${[...steps, selector].join(" → ")}`;
}
