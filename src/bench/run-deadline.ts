// A time limit as an AbortSignal that cannot be lost. `AbortSignal.any([outer, AbortSignal.timeout(ms)])`
// holds its sources weakly on Node 20: after a full garbage collection nothing kept the timeout signal
// alive, it never fired, and a stalled run waited forever (a reviewer's --expose-gc script: a 300 ms
// limit still waiting at 5 s). Here the timer holds the controller until it fires or is cleared.

export interface RunDeadline {
  /** Aborts when the limit passes (reason: a TimeoutError DOMException) or when `outer` aborts. */
  readonly signal: AbortSignal;
  /** True once the limit itself passed (not the outer signal). */
  readonly expired: boolean;
  /** Stops the timer; call it when the guarded work ends. */
  clear(): void;
}

export function runDeadline(ms: number, outer?: AbortSignal): RunDeadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError"));
  }, ms);
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener("abort", onOuter, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuter);
    },
  };
}
