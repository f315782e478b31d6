import { MajorityVotingStrategy, type MajorityVotingStrategyOptions } from "./majority-voting-strategy.js";
import { rougeLSimilarity } from "./similarity.js";

export type MBRDRougeLStrategyOptions = Omit<MajorityVotingStrategyOptions, "similarity">;

/**
 * Mellea's MBRDRougeLStrategy: minimum Bayes risk decoding over n samples (default 8, Mellea's
 * number_of_samples) with ROUGE-L F1 as the similarity, the general-purpose vote for free-form text. The
 * candidate with the highest summed similarity to the others wins (Mellea adds 1 for each sample's vote for
 * itself, which changes no choice). Pooled and early-cancelled like MajorityVotingStrategy when a
 * requirement streams.
 */
export class MBRDRougeLStrategy extends MajorityVotingStrategy {
  constructor(options: MBRDRougeLStrategyOptions = {}) {
    super({ ...options, similarity: rougeLSimilarity });
  }
}
