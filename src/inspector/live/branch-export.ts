// What the static exports show of a live branch: its settings as the user gave them and the sampler
// chain they ran as, for one branch's page and for every branch of the tree page.

import { InspectorTreeTooLargeError } from "../errors/inspector-tree-too-large-error.js";
import type { InspectorTreeReport } from "../inspector-tree-report.js";
import { describeSamplerChain } from "../sampler-chain.js";
import { branchPath, branchPathLength } from "./branch-path.js";
import type { BranchView } from "./inspector-session.js";
import { liveAlternatives } from "./inspector-settings.js";

/** llama.cpp's order: logit bias, penalties, grammar, then the truncations describeSamplerChain names. */
function samplerChainOf(chain: string, logitBias: boolean, grammar: boolean): string {
  const steps = chain.split(" → ");
  if (grammar) steps.splice(steps[0]!.startsWith("penalties") ? 1 : 0, 0, "grammar");
  if (logitBias) steps.unshift("logit bias");
  return steps.join(" → ");
}

export function branchSettingsShown(branch: BranchView): {
  settings: Record<string, string | number>;
  samplerChain: string;
} {
  const { logitBias, grammar, ...numeric } = branch.settings;
  const samplers = Object.fromEntries(
    Object.entries(numeric).filter(([name, value]) => name !== "maxTokens" && value !== undefined),
  ) as Record<string, number>;
  // Shown verbatim, as the user gave them; the bias and the grammar as text.
  const settings: Record<string, string | number> = { ...samplers };
  if (logitBias !== undefined) settings.logitBias = JSON.stringify(logitBias);
  if (grammar !== undefined) settings.grammar = grammar;
  return {
    settings,
    samplerChain: samplerChainOf(
      describeSamplerChain(samplers),
      logitBias !== undefined,
      grammar !== undefined,
    ),
  };
}

export interface InspectorTreeReportInput {
  modelId: string;
  /** Every branch, parents before their forks: what InspectorSession.tree() returns. */
  branches: readonly BranchView[];
  title?: string;
  /** Defaults to now; tests pass a fixed date. */
  generatedAt?: Date;
}

/**
 * Most tokens the tree page may hold, summed over every branch's whole path (a branch repeats its ancestors'
 * tokens). The page costs about 1.5 KB of JSON per token with its alternatives: 50,000 tokens make a ~75 MB
 * file that a browser still opens, and keep the synchronous render well under two seconds; far beyond, the
 * page passes V8's longest string.
 */
export const maximumTreePageTokens = 50_000;

/** The tree page's data from a session's branches: each with its path, drawn as the static page draws one. */
export function buildInspectorTreeReport(input: InspectorTreeReportInput): InspectorTreeReport {
  const byId = new Map(input.branches.map((branch) => [branch.id, branch] as const));
  // Checked before any path is copied: the sum is cheap to count, the paths are what would be too large.
  let pathTokens = 0;
  for (const branch of input.branches) {
    pathTokens += branchPathLength(byId, branch.id);
  }
  if (pathTokens > maximumTreePageTokens)
    throw new InspectorTreeTooLargeError(pathTokens, maximumTreePageTokens);
  return {
    title: input.title ?? "Tessera logits inspector — branch tree",
    modelId: input.modelId,
    generatedAt: (input.generatedAt ?? new Date()).toISOString(),
    topK: liveAlternatives,
    branches: input.branches.map((branch) => ({
      id: branch.id,
      parentId: branch.parentId,
      atTokenIndex: branch.atTokenIndex,
      kind: branch.kind,
      forkToken: branch.forkToken,
      prompt: branch.prompt,
      ...branchSettingsShown(branch),
      status: branch.status,
      finishReason: branch.finishReason,
      ownTokens: branch.tokens.length,
      tokens: branchPath(byId, branch.id),
    })),
  };
}
