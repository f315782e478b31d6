// What the telemetry failure tests share: OpenTelemetry's globals set for a file's tests and cleared after,
// a backend with its own hooks on the tiny model (closed after the test's body), and OpenTelemetry's
// diagnostic logger collecting the errors it reports.
import {
  context,
  DiagLogLevel,
  diag,
  type MeterProvider,
  metrics,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { HookRegistry } from "../../src/core/index.js";

/** Makes these providers OpenTelemetry's global ones, with async context, for a file's tests. */
export function installGlobalTelemetry(tracerProvider: TracerProvider, meterProvider: MeterProvider): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
}

/** Clears what installGlobalTelemetry and collectDiagErrors set, so the next file starts without them. */
export function removeGlobalTelemetry(): void {
  diag.disable();
  metrics.disable();
  trace.disable();
  context.disable();
}

/** Runs `body` with a one-sequence tiny backend that emits to `hooks`, disposed afterwards whatever happens. */
export async function withHookedBackend<T>(
  hooks: HookRegistry,
  body: (backend: LlamaCppBackend) => Promise<T>,
): Promise<T> {
  const backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256, hooks });
  try {
    return await body(backend);
  } finally {
    await backend.dispose();
  }
}

/** Sends diag.error's reported values (the error each carries) into the returned list until diag.disable(). */
export function collectDiagErrors(): unknown[] {
  const reported: unknown[] = [];
  const ignore = () => {};
  diag.setLogger(
    {
      error: (_message, ...args) => reported.push(args[0]),
      warn: ignore,
      info: ignore,
      debug: ignore,
      verbose: ignore,
    },
    DiagLogLevel.ERROR,
  );
  return reported;
}
