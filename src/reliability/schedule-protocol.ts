// The JSON lines a schedule-fuzz child writes to its parent, one per event, so a crash is attributed
// to the case that was running when the process died.
import type { ScheduleKind } from "./schedule-plan.js";

/** How one case ended, as the child saw it. */
export type ScheduleCaseOutcome = "ok" | "unexpected-error" | "hang" | "crash" | "leak";

export type ScheduleChildLine =
  | { readonly type: "ready"; readonly threads: number }
  | { readonly type: "start"; readonly index: number }
  | {
      readonly type: "done";
      readonly index: number;
      readonly kind?: ScheduleKind;
      readonly outcome: ScheduleCaseOutcome;
      readonly detail?: string;
      /** Threads above the child's baseline that did not go away within the settle time. */
      readonly leakedThreads?: number;
      readonly rssBytes?: number;
      readonly dueEvents?: number;
      readonly milliseconds?: number;
    }
  | {
      readonly type: "end";
      readonly threadsBaseline: number;
      /** RSS after a full GC, after the warm-up and after the last case. */
      readonly rssStartBytes: number;
      readonly rssEndBytes: number;
    };

/** What the parent passes to a batch child (argv[3], as JSON). */
export interface ScheduleBatchRequest {
  readonly runSeed: number;
  readonly indices: readonly number[];
}
