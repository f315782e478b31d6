// Where the first token's time goes, stage by stage, for rows that can say (tessera in-process). The
// backend's stages come from GenerationMetadata.timings; the benchmark adds the consumer's side.

/** The stages in order; each runs from the end of the one before, so together they are the first token. */
export const firstTokenStages = [
  "setup",
  "template",
  "tokenize",
  "queueWait",
  "prefill",
  "firstDelivery",
] as const;

export type FirstTokenStage = (typeof firstTokenStages)[number];

export type FirstTokenStageTimes = Record<FirstTokenStage, number>;

export const stageTitles: Record<FirstTokenStage, string> = {
  setup: "setup",
  template: "template render",
  tokenize: "tokenize",
  queueWait: "queue wait",
  prefill: "prefill + first sample",
  firstDelivery: "first delivery",
};

export function stagesSum(stages: FirstTokenStageTimes): number {
  return firstTokenStages.reduce((sum, stage) => sum + stages[stage], 0);
}
