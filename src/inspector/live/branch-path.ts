// The tokens a branch reads as, from the root: its ancestors' tokens up to each fork point, the
// alternative placed there (with the probabilities it had in the distribution it was picked from),
// then its own tokens. The export draws this path with the static page's renderer.
import type { InspectorDistribution } from "../inspector-report.js";
import type { BranchView } from "./inspector-session.js";
import type { LiveToken } from "./live-token.js";

/** The distribution at a fork point as if `token` had been chosen there. */
function choosing(distribution: InspectorDistribution | null, token: number): InspectorDistribution | null {
  if (distribution === null) return null;
  const rank = distribution.top.findIndex((alternative) => alternative.token === token);
  return {
    ...distribution,
    logprob: rank < 0 ? null : distribution.top[rank]!.logprob,
    rank: rank < 0 ? null : rank + 1,
  };
}

export function branchPath(branches: ReadonlyMap<number, BranchView>, id: number): LiveToken[] {
  const branch = branches.get(id);
  if (branch === undefined) return [];
  let prefix: LiveToken[] = [];
  if (branch.parentId !== null && branch.atTokenIndex !== null) {
    const parent = branches.get(branch.parentId);
    const parentPath = branchPath(branches, branch.parentId);
    const start = parentPath.length - (parent?.tokens.length ?? 0);
    prefix = parentPath.slice(0, start + branch.atTokenIndex);
    const forked = parentPath[start + branch.atTokenIndex];
    if (branch.forkToken !== null) {
      const { token, text } = branch.forkToken;
      // After the parent's last token there is no distribution it was picked from: the token stays in
      // the path all the same, with none.
      prefix.push(
        forked === undefined
          ? { index: 0, token, text, processed: null, raw: null }
          : {
              ...forked,
              token,
              text,
              processed: choosing(forked.processed, token),
              raw: choosing(forked.raw, token),
            },
      );
    }
  }
  return [...prefix, ...branch.tokens].map((token, index) => ({ ...token, index }));
}

/** How many tokens branchPath(branches, id) returns, without copying any of them. */
export function branchPathLength(branches: ReadonlyMap<number, BranchView>, id: number): number {
  const branch = branches.get(id);
  if (branch === undefined) return 0;
  let prefix = 0;
  if (branch.parentId !== null && branch.atTokenIndex !== null) {
    const parentLength = branchPathLength(branches, branch.parentId);
    const start = parentLength - (branches.get(branch.parentId)?.tokens.length ?? 0);
    prefix = Math.min(parentLength, start + branch.atTokenIndex) + (branch.forkToken !== null ? 1 : 0);
  }
  return prefix + branch.tokens.length;
}
