// What one case of the schedule fuzzer does, drawn from (run seed, case number) alone: the same pair
// gives the same schedule on every machine, so case i replays by itself with `--schedule-case i`.
// Timing inside a case is real (threads race), so a replay reproduces the schedule, not every
// interleaving; the parent replays a failing case alone to say whether it recurs.
import { caseSeed, SeededRandom } from "./seeded-random.js";

export const scheduleKinds = [
  "streams",
  "raw-pull",
  "load-and-create",
  "worker-terminate",
  "process-exit",
] as const;
export type ScheduleKind = (typeof scheduleKinds)[number];

/** How the reader paces itself between tokens. */
export interface ConsumerPlan {
  readonly kind: "immediate" | "set-immediate" | "busy-wait" | "pause";
  /** busy-wait: CPU spin per token, 0.05–2 ms (a slow consumer on the JS thread). */
  readonly busyWaitMs: number;
  /** pause: chance per token of sleeping pauseMs (the queue fills meanwhile). */
  readonly pauseChance: number;
  readonly pauseMs: number;
}

/**
 * A stop of a stream: when the moment comes, the stream is cancelled, left with `break`, aborted by
 * its signal, or its context or model is disposed.
 */
export interface StopPlan {
  readonly kind: "none" | "cancel" | "break" | "signal" | "dispose-context" | "dispose-model";
  /**
   * prefill: 0–3 ms after generate() (0 = in a microtask), whatever was read; decode: after reading
   * afterTokens; full-queue: after afterTokens the reader stops reading until the queue is full.
   */
  readonly moment: "prefill" | "decode" | "full-queue";
  readonly afterTokens: number;
  readonly delayMs: number;
}

export interface StreamPlan {
  /** Index into the case's contexts. */
  readonly context: number;
  readonly promptTokens: number;
  readonly maxTokens: number;
  readonly queueCapacity: number;
  readonly temperature: number;
  readonly seed: number;
  /** Read through batches() instead of `for await` over events. */
  readonly byBatches: boolean;
  readonly consumer: ConsumerPlan;
  readonly stop: StopPlan;
}

export interface ContextPlan {
  readonly sequences: number;
  readonly contextSize: number;
  readonly batchSize: number;
}

/** Library API: several contexts and sequences, several streams at once, each with its own stop. */
export interface StreamsCase {
  readonly kind: "streams";
  /** Load a model of its own (needed when a stop disposes the model); else share the child's. */
  readonly ownModel: boolean;
  readonly contexts: readonly ContextPlan[];
  readonly streams: readonly StreamPlan[];
}

/** Raw addon API: pull(n) with a small native queue, where lost wake-ups show first. */
export interface RawPullCase {
  readonly kind: "raw-pull";
  readonly ownModel: boolean;
  readonly generations: readonly {
    readonly queueCapacity: number;
    readonly pullSize: number;
    readonly maxTokens: number;
    readonly promptTokens: number;
    readonly consumer: ConsumerPlan;
    readonly stop: StopPlan;
    /** The caller keeps only the first pull's promise, drops the handle and runs the collector. */
    readonly dropHandle: boolean;
  }[];
  readonly sequences: number;
}

/** Timing of a dispose or abort relative to the call it races. */
export interface RaceMoment {
  readonly kind: "sync" | "microtask" | "immediate" | "timer" | "none";
  readonly delayMs: number;
}

/** A model loaded (maybe aborted mid-load), contexts created while the model is disposed. */
export interface LoadAndCreateCase {
  readonly kind: "load-and-create";
  /** Abort the load by its signal: after this many progress callbacks (0 = never), or at a moment. */
  readonly abortLoadAfterProgress: number;
  readonly abortLoadAt: RaceMoment;
  /** createContext calls started together. */
  readonly contexts: readonly ContextPlan[];
  /** Dispose the model while they are in flight. */
  readonly disposeModelAt: RaceMoment;
  /** Then generate on every context that resolved (it must refuse or run, never crash). */
  readonly generateAfter: boolean;
}

/** A Worker thread that loads the addon and generates; the parent terminates it mid-way. */
export interface WorkerTerminateCase {
  readonly kind: "worker-terminate";
  readonly at: "load" | "create-context" | "decode";
  /** load: after this many progress messages; decode: after this many tokens. */
  readonly after: number;
  readonly delayMs: number;
  readonly queueCapacity: number;
  readonly streams: number;
  readonly consumer: ConsumerPlan;
}

/** A process that calls process.exit(code) while streams run; it must exit with that code. */
export interface ProcessExitCase {
  readonly kind: "process-exit";
  readonly exitCode: number;
  readonly afterTokens: number;
  readonly streams: number;
  readonly queueCapacity: number;
  readonly consumer: ConsumerPlan;
}

export type ScheduleCase =
  | StreamsCase
  | RawPullCase
  | LoadAndCreateCase
  | WorkerTerminateCase
  | ProcessExitCase;

// Spawning a process or a worker costs far more than a stream, so those kinds are rarer.
const kindWeights: readonly [ScheduleKind, number][] = [
  ["streams", 40],
  ["raw-pull", 30],
  ["load-and-create", 14],
  ["worker-terminate", 12],
  ["process-exit", 4],
];

function pickKind(random: SeededRandom): ScheduleKind {
  let ticket = random.next() * kindWeights.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [kind, weight] of kindWeights) {
    ticket -= weight;
    if (ticket < 0) return kind;
  }
  return "streams";
}

function consumer(random: SeededRandom): ConsumerPlan {
  const kind = random.pick(["immediate", "set-immediate", "busy-wait", "pause"] as const);
  return {
    kind,
    busyWaitMs: 0.05 + random.next() * 1.95,
    pauseChance: random.pick([0.01, 0.05, 0.2]),
    pauseMs: random.between(1, 15),
  };
}

/** Mostly short generations, some long ones (a lost wake-up needs many full-queue moments). */
function tokenCount(random: SeededRandom, longest: number): number {
  return random.chance(0.6) ? random.between(1, 40) : random.between(40, longest);
}

function stop(random: SeededRandom, maxTokens: number, kinds: readonly StopPlan["kind"][]): StopPlan {
  return {
    kind: random.pick(kinds),
    moment: random.pick(["prefill", "decode", "full-queue"] as const),
    afterTokens: random.between(0, maxTokens),
    delayMs: random.integer(4),
  };
}

function contextPlan(random: SeededRandom): ContextPlan {
  return {
    sequences: random.between(1, 3),
    contextSize: random.pick([256, 512]),
    batchSize: random.pick([16, 64, 512]),
  };
}

function raceMoment(random: SeededRandom, allowNone: boolean, longestDelayMs: number): RaceMoment {
  const kinds: RaceMoment["kind"][] = ["sync", "microtask", "immediate", "timer", "timer"];
  if (allowNone) kinds.push("none");
  return { kind: random.pick(kinds), delayMs: random.integer(longestDelayMs + 1) };
}

function streamsCase(random: SeededRandom): StreamsCase {
  const contexts = Array.from({ length: random.between(1, 3) }, () => contextPlan(random));
  const stopKinds = ["none", "cancel", "break", "signal", "dispose-context", "dispose-model"] as const;
  const streams: StreamPlan[] = Array.from({ length: random.between(1, 4) }, () => {
    const context = random.integer(contexts.length);
    const promptTokens = random.between(2, 200);
    const maxTokens = Math.min(tokenCount(random, 300), contexts[context]!.contextSize - promptTokens - 1);
    return {
      context,
      promptTokens,
      maxTokens,
      queueCapacity: random.between(1, 8),
      temperature: random.pick([0, 0.8]),
      seed: random.integer(1 << 30),
      byBatches: random.chance(0.3),
      consumer: consumer(random),
      // Most streams run to their end or a stop of their own; disposals end everything at once.
      stop: stop(random, maxTokens, random.chance(0.7) ? stopKinds.slice(0, 4) : stopKinds),
    };
  });
  return {
    kind: "streams",
    ownModel: streams.some((s) => s.stop.kind === "dispose-model"),
    contexts,
    streams,
  };
}

function rawPullCase(random: SeededRandom): RawPullCase {
  const stopKinds = ["none", "none", "cancel", "dispose-context", "dispose-model"] as const;
  const generations = Array.from({ length: random.between(1, 2) }, () => {
    const queueCapacity = random.between(1, 8);
    const maxTokens = tokenCount(random, 400);
    return {
      queueCapacity,
      pullSize: random.between(1, queueCapacity),
      maxTokens,
      promptTokens: random.between(2, 60),
      consumer: consumer(random),
      stop: stop(random, maxTokens, stopKinds),
      // Derived from values already drawn rather than drawn itself, so every case number keeps the
      // plan it had before this was added (the documented case numbers replay as they were).
      dropHandle: (queueCapacity * 31 + maxTokens) % 6 === 0,
    };
  });
  const ownModel = generations.some((generation) => generation.stop.kind === "dispose-model");
  return { kind: "raw-pull", ownModel, generations, sequences: random.between(1, 2) };
}

function loadAndCreateCase(random: SeededRandom): LoadAndCreateCase {
  const abortLoad = random.chance(0.25);
  return {
    kind: "load-and-create",
    abortLoadAfterProgress: abortLoad && random.chance(0.5) ? random.between(1, 5) : 0,
    abortLoadAt: abortLoad ? raceMoment(random, false, 120) : { kind: "none", delayMs: 0 },
    contexts: Array.from({ length: random.between(1, 3) }, () => contextPlan(random)),
    disposeModelAt: raceMoment(random, true, 5),
    generateAfter: random.chance(0.8),
  };
}

function workerTerminateCase(random: SeededRandom): WorkerTerminateCase {
  const at = random.pick(["load", "create-context", "decode", "decode"] as const);
  return {
    kind: "worker-terminate",
    at,
    after: at === "load" ? random.between(0, 4) : random.between(1, 60),
    delayMs: random.integer(3),
    queueCapacity: random.between(1, 8),
    streams: random.between(1, 2),
    consumer: consumer(random),
  };
}

function processExitCase(random: SeededRandom): ProcessExitCase {
  return {
    kind: "process-exit",
    exitCode: random.integer(120),
    afterTokens: random.between(1, 60),
    streams: random.between(1, 3),
    queueCapacity: random.between(1, 8),
    consumer: consumer(random),
  };
}

export function planScheduleCase(runSeed: number, index: number): ScheduleCase {
  const random = new SeededRandom(caseSeed(runSeed ^ 0x5c4ed01e, index));
  switch (pickKind(random)) {
    case "streams":
      return streamsCase(random);
    case "raw-pull":
      return rawPullCase(random);
    case "load-and-create":
      return loadAndCreateCase(random);
    case "worker-terminate":
      return workerTerminateCase(random);
    case "process-exit":
      return processExitCase(random);
  }
}
