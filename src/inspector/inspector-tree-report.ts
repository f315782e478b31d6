// The data behind the tree page: every branch of a live inspector session, each with its place in the
// tree and its whole path (ancestors' tokens up to each fork point, the alternative, its own tokens)
// in the static page's token format, so the one renderer draws whichever branch is picked.
import type { InspectorToken } from "./inspector-report.js";

export interface InspectorTreeBranch {
  id: number;
  parentId: number | null;
  /** Index in the parent's own tokens where this branch starts; null for a root. */
  atTokenIndex: number | null;
  kind: "root" | "alternative" | "resample";
  /** The alternative placed at the fork point; null for a root or a re-sample. */
  forkToken: { token: number; text: string } | null;
  prompt: string;
  /** Sampler settings as the user gave them, shown verbatim. */
  settings: Record<string, string | number>;
  samplerChain: string;
  status: "running" | "done" | "error";
  finishReason: string | null;
  /** Tokens the branch generated itself (its path also holds what it inherited). */
  ownTokens: number;
  /** The path from the root, numbered from 0; a token may carry `removedBy` (candidate id → sampler). */
  tokens: InspectorToken[];
}

export interface InspectorTreeReport {
  title: string;
  modelId: string;
  generatedAt: string;
  /** Alternatives captured per token, raw and processed. */
  topK: number | null;
  /** Oldest first: a parent always comes before its forks. */
  branches: InspectorTreeBranch[];
}
