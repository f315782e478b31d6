// Where the first token's time goes, stage by stage, for rows that can say (tessera in-process, tessera
// serve, the C++ greedy runner). The backend's stages come from GenerationMetadata.timings; serve adds
// its own around them (request parsing and handling before, the first socket write after), and the
// benchmark adds the consumer's side (the hop to its for-await, or the network and SSE parsing).

/** The stages in order; each runs from the end of the one before, so together they are the first token. */
export const firstTokenStages = [
  "request",
  "setup",
  "template",
  "tokenize",
  "queueWait",
  "prefill",
  "firstDelivery",
  "firstWrite",
  "network",
] as const;

export type FirstTokenStage = (typeof firstTokenStages)[number];

export type FirstTokenStageTimes = Record<FirstTokenStage, number>;

export const stageTitles: Record<FirstTokenStage, string> = {
  request: "request parse + handling",
  setup: "setup",
  template: "template render",
  tokenize: "tokenize",
  queueWait: "queue wait",
  prefill: "prefill + first sample",
  firstDelivery: "first delivery",
  firstWrite: "first socket write",
  network: "network + client parse",
};

/** Stage times with every serve-only stage at 0 (an in-process row). */
export function inProcessStages(
  stages: Omit<FirstTokenStageTimes, "request" | "firstWrite" | "network">,
): FirstTokenStageTimes {
  return { request: 0, ...stages, firstWrite: 0, network: 0 };
}

export function stagesSum(stages: FirstTokenStageTimes): number {
  return firstTokenStages.reduce((sum, stage) => sum + stages[stage], 0);
}
