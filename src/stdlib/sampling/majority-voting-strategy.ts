import type { DrawnSample } from "./sampling-history.js";
import { ScoringSamplingStrategy, type ScoringSamplingStrategyOptions } from "./scoring-sampling-strategy.js";
import { exactMatchSimilarity, type Similarity } from "./similarity.js";

export interface MajorityVotingStrategyOptions extends ScoringSamplingStrategyOptions {
  /** Default exactMatchSimilarity (plain majority vote); rougeLSimilarity suits free-form text. */
  similarity?: Similarity;
  /** The part of an answer that votes (say, the final number); default the whole text. */
  extract?: (text: string) => string;
}

/**
 * Minimum Bayes risk decoding: draw n samples in one batch and choose the candidate most similar to all the
 * others (the sum of its similarities to every other candidate). Candidates are the samples that passed
 * every requirement, or all of them when none did. Ties go to the earliest sample.
 */
export class MajorityVotingStrategy extends ScoringSamplingStrategy {
  readonly similarity: Similarity;
  readonly extract: (text: string) => string;

  constructor(options: MajorityVotingStrategyOptions = {}) {
    super(options);
    this.similarity = options.similarity ?? exactMatchSimilarity;
    this.extract = options.extract ?? ((text) => text);
  }

  protected async scoreCandidates<T>(candidates: Array<DrawnSample<T>>): Promise<number[]> {
    const answers = candidates.map((candidate) => this.extract(candidate.thunk.value));
    const scores = answers.map(() => 0);
    for (let i = 0; i < answers.length; i += 1) {
      for (let j = i + 1; j < answers.length; j += 1) {
        // Computed once per pair and credited to both: similarity is meant to be symmetric.
        const similarity = this.similarity(answers[i]!, answers[j]!);
        scores[i]! += similarity;
        scores[j]! += similarity;
      }
    }
    return scores;
  }
}
