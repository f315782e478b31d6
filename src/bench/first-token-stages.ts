// Where the first token's time goes, stage by stage, for rows that can say (tessera in-process, tessera
// serve, the C++ greedy runner). The backend's stages come from GenerationMetadata.timings; serve adds
// its own around them (request parsing and handling before, the first socket write after), and the
// benchmark adds the consumer's side (the hop to its for-await, or the network and SSE parsing).

/**
 * The stages in order. Each is an interval between two marks taken where its work starts and ends (never
 * what is left of the first token), so what they do not cover shows as the residual below.
 */
export const firstTokenStages = [
  "transit",
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
  transit: "client send + network",
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
  stages: Omit<FirstTokenStageTimes, "transit" | "request" | "firstWrite" | "network">,
): FirstTokenStageTimes {
  return { transit: 0, request: 0, ...stages, firstWrite: 0, network: 0 };
}

export function stagesSum(stages: FirstTokenStageTimes): number {
  return firstTokenStages.reduce((sum, stage) => sum + stages[stage], 0);
}

/**
 * The first token as the benchmark timed it on its own clock (before the call → the reader's first text)
 * minus the sum of the stages: the time no stage covers (positive) or counted twice (negative).
 */
export function unaccountedMs(firstTokenMs: number, stages: FirstTokenStageTimes): number {
  return firstTokenMs - stagesSum(stages);
}

/** The acceptance bound of issue 14: the stages cover the first token within this share of it. */
export const stagesTolerance = 0.05;

/** Whether `residual` is within the tolerance of the first token (both medians over a row's runs). */
export function stagesCoverFirstToken(firstTokenMs: number, residualMs: number): boolean {
  return Math.abs(residualMs) <= stagesTolerance * firstTokenMs;
}
